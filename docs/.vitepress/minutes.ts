// How long, as a reader plans an evening: "50 min" or "2 h 40 min". Its own module, with no Node
// imports, so the home page can use it in the browser too.
export function formatMinutes(minutes: number): string {
  if (minutes < 90) return `${minutes} min`;
  const rounded = Math.round(minutes / 10) * 10;
  const hours = Math.floor(rounded / 60);
  const rest = rounded % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
