/** Formats integer cents as dollars, e.g. 1999 -> "$19.99", -250 -> "-$2.50". */
export function formatCents(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100);
  const rest = String(abs % 100).padStart(2, "0");
  return `${sign}$${dollars}.${rest}`;
}

/** One receipt line: the name padded to a column, the amount right-aligned. */
export function receiptLine(label, cents, width = 32) {
  const amount = formatCents(cents);
  return `${label.padEnd(width - amount.length)}${amount}`;
}
