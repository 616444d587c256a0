import { receiptLine } from "./format.mjs";

/** Sum of all line items, in cents. */
export function subtotal(items) {
  return items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);
}

/**
 * What the customer pays, in cents. The coupon comes off the goods before tax
 * (see README: tax is charged on what the customer pays for the goods).
 */
export function total(items, { couponCents = 0, taxRate = 0 } = {}) {
  const taxed = Math.round(subtotal(items) * (1 + taxRate));
  return Math.max(0, taxed - couponCents);
}

/** A printable receipt, one line per item, then the total. */
export function receipt(items, options = {}) {
  const lines = items.map((item) =>
    receiptLine(`${item.quantity} x ${item.name}`, item.priceCents * item.quantity),
  );
  if (options.couponCents) lines.push(receiptLine("coupon", -options.couponCents));
  lines.push(receiptLine("total", total(items, options)));
  return lines.join("\n");
}
