import type { IUserContext } from "../../contracts/index.js";

/** One conversation of the demo. */
export interface IDemoScenario {
  title: string;
  /** What the customer asks: the input with a real model, shown in the transcript either way. */
  prompt: string;
  userContext: IUserContext;
  /**
   * What the scripted model does (DESIGN §7): each entry is one model reply, tool calls or a text.
   * A reply with several calls is one step whose calls run in parallel.
   */
  script: unknown[];
}

const ada: IUserContext = { userId: "u-ada", attributes: { email: "ada@example.com" } };

export const demoScenarios: readonly IDemoScenario[] = [
  {
    title: "Two orders looked up in one step (parallel tool calls)",
    prompt: "Where are my orders A-1001 and A-1002?",
    userContext: ada,
    script: [
      { calls: [{ name: "classify_request", input: { text: "Where are my orders A-1001 and A-1002?" } }] },
      {
        calls: [
          { name: "lookup_order", input: { orderId: "A-1001" } },
          { name: "lookup_order", input: { orderId: "A-1002" } },
        ],
      },
      {
        text: "Your headphones (A-1001) are on their way with DHL, tracking JD0140 0000 1001. Your espresso grinder (A-1002) was delivered on 14 March.",
      },
    ],
  },
  {
    title: "Stock from the warehouse's MCP server (a tool served over MCP, started by the demo)",
    prompt: "Is the espresso grinder GRND-200 back in stock?",
    userContext: ada,
    script: [
      { calls: [{ name: "warehouse__check_stock", input: { sku: "GRND-200" } }] },
      {
        text: "The espresso grinder (GRND-200) is out of stock right now; the warehouse expects it back on 28 March.",
      },
    ],
  },
  {
    title: "A refund of an unknown charge (refused by the policy)",
    prompt: "Refund the 30 EUR charge ch_9999 on my card for order A-1001.",
    userContext: ada,
    script: [
      {
        calls: [
          {
            name: "refund",
            input: { orderId: "A-1001", chargeId: "ch_9999", amount: 30, reason: "customer request" },
          },
        ],
      },
      { text: "I could not refund ch_9999: it is not one of our charges. Could you check the order number?" },
    ],
  },
  {
    title: "A large refund parked for a human, approved with an edited amount",
    prompt: "My espresso grinder from order A-1002 arrived broken. Please refund the full 180 EUR.",
    userContext: ada,
    script: [
      { calls: [{ name: "lookup_order", input: { orderId: "A-1002" } }] },
      {
        calls: [
          {
            name: "refund",
            input: { orderId: "A-1002", chargeId: "ch_1002", amount: 180, reason: "arrived broken" },
          },
        ],
      },
      {
        text: "A team lead approved a refund of 120 EUR to your card now; the rest follows once the grinder is back with us.",
      },
    ],
  },
  {
    title: "An email waiting for approval, rejected by the reviewer",
    prompt: "Email me a confirmation that my replacement grinder ships tomorrow.",
    userContext: ada,
    script: [
      {
        calls: [
          {
            name: "send_email",
            input: {
              to: "ada@example.com",
              subject: "Your replacement grinder",
              body: "Good news: your replacement grinder ships tomorrow.",
            },
          },
        ],
      },
      {
        text: "I can't confirm a ship date yet; we will email you as soon as the replacement leaves the warehouse.",
      },
    ],
  },
  {
    title: "A hand-over to a person ends the run",
    prompt: "This is the third broken grinder. I want to talk to a person.",
    userContext: ada,
    script: [
      {
        calls: [
          {
            name: "handover_to_human",
            input: {
              summary: "Third broken grinder (order A-1002); customer asks for a person.",
              priority: "urgent",
            },
          },
        ],
      },
    ],
  },
];

/** The run's input: the script for the scripted model (with the prompt beside it), or the prompt itself. */
export function scenarioInput(scenario: IDemoScenario, modelKind: "scripted" | "real"): string {
  return modelKind === "scripted"
    ? JSON.stringify({ prompt: scenario.prompt, script: scenario.script })
    : scenario.prompt;
}
