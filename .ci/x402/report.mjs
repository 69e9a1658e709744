// report.mjs — what pay.mjs and mcp-pay.mjs share: the command line, the
// failed checks, the table of calls, the checks of a settlement and the
// ledger of charged calls, and the ending (table, total, ledger file, exit
// status).
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

// commandLine reads the command line of script, which takes a URL ending
// in /tail and an optional ledger path, with the payer's private key in
// PAYER_KEY. It returns [url, ledgerPath, key], or exits 2 with the usage.
export function commandLine(script, tail) {
  const [url, ledgerPath] = process.argv.slice(2);
  if (!url || !new RegExp(`^https?://.+/${tail}$`).test(url) || !process.env.PAYER_KEY) {
    console.error(`usage: PAYER_KEY=0x<private key> node ${script} http://HOST:PORT/${tail} [LEDGER]`);
    process.exit(2);
  }
  return [url, ledgerPath, process.env.PAYER_KEY];
}

// settlement checks the decoded settlement s of a call that payer paid
// with payment (the PaymentPayload the x402 client signed) for price to
// payTo, and books the charge in the ledger as op at url. It returns what
// was charged.
export function settlement(what, s, { price, payment, payTo, payer, op, url }) {
  check(what, s.success === true, `settlement success ${s.success} (${s.errorReason ?? ""})`);
  check(what, s.network === NETWORK, `settlement network ${s.network}, want ${NETWORK}`);
  check(what, same(s.payer, payer), `settlement payer ${s.payer}, want ${payer}`);
  check(what, typeof s.transaction === "string" && s.transaction.length > 0, `settlement transaction ${JSON.stringify(s.transaction)}`);
  if (s.amount !== undefined) check(what, s.amount === price, `settlement amount ${s.amount}, want ${price}`);
  const auth = payment?.payload?.authorization ?? {};
  check(what, payment?.accepted?.amount === price && auth.value === price, `the client signed ${auth.value} for accepted ${payment?.accepted?.amount}, want ${price}`);
  check(what, same(auth.to, payTo) && same(auth.from, payer), `the authorization is from ${auth.from} to ${auth.to}`);
  ledger.push({ op, url, value: auth.value, from: auth.from, nonce: auth.nonce, transaction: s.transaction });
  return s.amount ?? auth.value;
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
