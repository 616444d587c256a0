// Runs the shop's checks: prints each failure with what was expected, exits 1 on any.
import { subtotal, total, receipt } from "./src/cart.mjs";
import { formatCents } from "./src/format.mjs";

const basket = [
  { name: "notebook", priceCents: 1000, quantity: 2 },
  { name: "pencil", priceCents: 250, quantity: 2 },
];

const checks = [
  ["formatCents(1999)", () => formatCents(1999), "$19.99"],
  ["formatCents(5)", () => formatCents(5), "$0.05"],
  ["subtotal of the basket", () => formatCents(subtotal(basket)), "$25.00"],
  ["total with 20% tax", () => formatCents(total(basket, { taxRate: 0.2 })), "$30.00"],
  [
    "total with a $5.00 coupon and 20% tax",
    () => formatCents(total(basket, { couponCents: 500, taxRate: 0.2 })),
    "$24.00",
  ],
  [
    "total never below zero",
    () => formatCents(total(basket, { couponCents: 9900, taxRate: 0.2 })),
    "$0.00",
  ],
  [
    "receipt ends with the total",
    () => receipt(basket, { taxRate: 0.2 }).split("\n").at(-1).trim(),
    "total                     $30.00",
  ],
];

let failed = 0;
for (const [name, run, expected] of checks) {
  const actual = run();
  if (actual !== expected) {
    failed += 1;
    console.error(`FAIL ${name}: expected ${expected}, got ${actual}`);
  }
}
if (failed > 0) {
  console.error(`${failed} of ${checks.length} checks failed`);
  process.exit(1);
}
console.log(`all checks passed (${checks.length})`);
