/**
 * The shop's data, in memory and deterministic: what a real gateway would read from its order and
 * payment services. A sandbox: every conversation (thread) starts from the same shop, nothing refunded,
 * so the demo and the walkthrough of docs/RUNNING.md answer the same however often they run on one
 * worker. Each worker process has its own copy; a real tool calls a shared service.
 */

export interface IOrder {
  orderId: string;
  customerEmail: string;
  item: string;
  total: number;
  currency: "EUR";
  status: "processing" | "shipped" | "delivered";
  /** The card payment of the order: what a refund goes back to. */
  chargeId: string;
  carrier?: string;
  trackingNumber?: string;
  deliveredOn?: string;
}

export interface ICharge {
  chargeId: string;
  orderId: string;
  amount: number;
  /** Refunded so far. */
  refunded: number;
}

const orderList: IOrder[] = [
  {
    orderId: "A-1001",
    customerEmail: "ada@example.com",
    item: "Noise-cancelling headphones",
    total: 249,
    currency: "EUR",
    status: "shipped",
    chargeId: "ch_1001",
    carrier: "DHL",
    trackingNumber: "JD0140 0000 1001",
  },
  {
    orderId: "A-1002",
    customerEmail: "ada@example.com",
    item: "Espresso grinder",
    total: 180,
    currency: "EUR",
    status: "delivered",
    chargeId: "ch_1002",
    deliveredOn: "2025-03-14",
  },
  {
    orderId: "A-1003",
    customerEmail: "grace@example.com",
    item: "USB-C cable",
    total: 12.5,
    currency: "EUR",
    status: "processing",
    chargeId: "ch_1003",
  },
];

export const orders: ReadonlyMap<string, IOrder> = new Map(orderList.map((order) => [order.orderId, order]));

/** What one conversation has done to the shop: its charges' refunds, and how many refunds it made. */
interface IShop {
  charges: Map<string, ICharge>;
  refundCount: number;
}

const shopsByThread = new Map<string, IShop>();
/** Conversations whose refunds are kept; the oldest is forgotten past it (a long-running worker). */
const maxThreadsKept = 1_000;

function shopOf(threadId: string): IShop {
  let shop = shopsByThread.get(threadId);
  if (shop === undefined) {
    const charges = new Map<string, ICharge>(
      [...orders.values()].map((order) => [
        order.chargeId,
        { chargeId: order.chargeId, orderId: order.orderId, amount: order.total, refunded: 0 },
      ]),
    );
    shop = { charges, refundCount: 0 };
    shopsByThread.set(threadId, shop);
    if (shopsByThread.size > maxThreadsKept) shopsByThread.delete(shopsByThread.keys().next().value ?? "");
  }
  return shop;
}

/** A charge as the conversation `threadId` sees it, with the refunds made in it. */
export function findCharge(threadId: string, chargeId: string): ICharge | undefined {
  return shopOf(threadId).charges.get(chargeId);
}

export interface IRefund {
  refundId: string;
  orderId: string;
  chargeId: string;
  amount: number;
  currency: "EUR";
  status: "refunded";
}

/**
 * Refunds keyed by the tool call's `callId`: a call that runs again after its worker died returns
 * the refund it already made instead of refunding twice. A payment API does the same with an
 * idempotency key.
 */
const refundsByCallId = new Map<string, IRefund>();

export function recordRefund(threadId: string, callId: string, charge: ICharge, amount: number): IRefund {
  const existing = refundsByCallId.get(callId);
  if (existing) return existing;
  charge.refunded = Math.round((charge.refunded + amount) * 100) / 100;
  const shop = shopOf(threadId);
  shop.refundCount += 1;
  const refund: IRefund = {
    refundId: `re_${String(shop.refundCount).padStart(4, "0")}`,
    orderId: charge.orderId,
    chargeId: charge.chargeId,
    amount,
    currency: "EUR",
    status: "refunded",
  };
  refundsByCallId.set(callId, refund);
  return refund;
}

/** Emails "sent" by send_email: nothing leaves the process. */
export const outbox: Array<{ messageId: string; to: string; subject: string; body: string }> = [];

/** Hand-overs to the human team. */
export const handovers: Array<{ ticketId: string; summary: string; priority: string }> = [];
