// report.mjs — what pay.mjs and mcp-pay.mjs share: the failed checks, the
// table of calls, the ledger of charged calls, and the ending (table,
// total, ledger file, exit status).
import { writeFileSync } from "node:fs";

export const NETWORK = "eip155:8453";
export const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"; // Base USDC

export const rows = [];     // the table printed at the end
export const failures = []; // "what: why"
export const ledger = [];   // charged calls

// check records a failure unless cond holds, and returns cond.
export function check(what, cond, why) {
  if (!cond) failures.push(`${what}: ${why}`);
  return cond;
}

export const same = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();
export const short = (s, n = 40) => (typeof s === "string" && s.length > n ? s.slice(0, n) + "…" : String(s ?? "-"));

// finish prints the table with the columns given and the total charged,
// writes the ledger when a path is given, and exits 1 when a check failed.
export function finish(cols, what, ledgerPath, okText) {
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (r) => cols.map((c, i) => String(r[c]).padEnd(width[i])).join("  ").trimEnd();
  console.log(line(Object.fromEntries(cols.map((c) => [c, c]))));
  for (const r of rows) console.log(line(r));
  const total = ledger.reduce((n, l) => n + BigInt(l.value), 0n);
  console.log(`${ledger.length} ${what} charged, ${total} atomic units (${Number(total) / 1e6} USD)`);
  if (ledgerPath) writeFileSync(ledgerPath, ledger.map((l) => JSON.stringify(l) + "\n").join(""));
  if (failures.length) {
    console.error(`\nFAIL: ${failures.length} check(s) failed:`);
    for (const f of failures) console.error("  - " + f);
    process.exit(1);
  }
  console.log(okText);
}
