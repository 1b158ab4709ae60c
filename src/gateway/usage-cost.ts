import type { TGatewaySettings } from "./gateway-options.js";

/** What tokens cost at the gateway's price of their model; undefined for a model without a price. */
export interface IUsageCost {
  prompt: number;
  completion: number;
  total: number;
}

const million = 1_000_000;

export function usageCostOf(
  prices: TGatewaySettings["prices"],
  model: string,
  tokens: { promptTokens: number; completionTokens: number },
): IUsageCost | undefined {
  if (!Object.hasOwn(prices, model)) return undefined;
  const price = prices[model]!;
  const prompt = (tokens.promptTokens * price.promptPerMillion) / million;
  const completion = (tokens.completionTokens * price.completionPerMillion) / million;
  return { prompt, completion, total: prompt + completion };
}
