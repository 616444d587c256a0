// swap-folder ROOT NAME OUTSIDE: swaps ROOT/NAME between the real folder and a symlink to OUTSIDE,
// as fast as it can, until stdin closes; then puts the real folder back and prints the swap count.
import { rename, rm, symlink, unlink } from "node:fs/promises";
import path from "node:path";

const [root, name, outside] = process.argv.slice(2) as [string, string, string];
const folder = path.join(root, name);
const parked = path.join(root, `${name}.parked`);
let running = true;
process.stdin.on("end", () => (running = false)).resume();

/** A step that fails (the patcher created the folder meanwhile, say) is simply tried again later. */
async function step(action: () => Promise<void>): Promise<void> {
  await action().catch(() => undefined);
}

let swaps = 0;
console.log("ready");
while (running) {
  await step(() => rename(folder, parked));
  await step(() => symlink(outside, folder));
  await step(() => unlink(folder));
  await step(() => rename(parked, folder));
  swaps += 1;
}
// A folder the patcher created while the real one was parked loses to the real one.
await step(() => unlink(folder));
await step(() => rename(parked, folder));
await step(() => rm(parked, { recursive: true, force: true }));
console.log(String(swaps));
