// receipts.mjs — compares the calls the clients were charged for (one or
// more LEDGERs, JSON Lines: pay.mjs's REST calls, mcp-pay.mjs's MCP tool
// calls) with the receipts the facilitator recorded (facilitator -receipts,
// JSON Lines, the last argument): one receipt per charged call, none more,
// each for the authorization the client signed, at the operation's price,
// for its resource (a REST URL, or mcp://tool/<name>).
//
//   node receipts.mjs LEDGER... RECEIPTS
import { readFileSync } from "node:fs";

const PRICE_BY_PATH = [
  [/\/v1\/variants\/[^/]+\/specs$/, "50000"],
  [/\/v1\/search\?/, "5000"],
  [/\/v1\/variants\?/, "5000"],
  [/\/v1\/compare\?/, "100000"],
];
const PRICE_BY_TOOL = { search_catalogue: "5000", filter_catalogue: "5000", get_specs_full: "50000", compare_full: "100000" };
// priceOf is the price of the operation at a charged resource.
function priceOf(resource) {
  const tool = /^mcp:\/\/tool\/([a-z_]+)$/.exec(resource);
  if (tool) return PRICE_BY_TOOL[tool[1]];
  const u = new URL(resource);
  return PRICE_BY_PATH.find(([re]) => re.test(u.pathname + u.search))?.[1];
}
const USDC = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error("usage: node receipts.mjs LEDGER... RECEIPTS");
  process.exit(2);
}
const receiptsPath = args.pop();
const lines = (p) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const ledgers = args.map((p) => [p, lines(p)]);
const ledger = ledgers.flatMap(([, l]) => l);
const receipts = lines(receiptsPath);
const key = (from, nonce) => `${from}/${nonce}`.toLowerCase();
const byAuth = new Map(receipts.map((r) => [key(r.authorization?.from, r.authorization?.nonce), r]));

const failures = [];
const signed = new Set();
for (const l of ledger) {
  if (signed.has(key(l.from, l.nonce))) failures.push(`two charged calls carry the same authorization (nonce ${l.nonce}): ${l.url}`);
  signed.add(key(l.from, l.nonce));
}
if (receipts.length !== ledger.length) {
  failures.push(`the facilitator recorded ${receipts.length} receipts for ${ledger.length} charged calls`);
}
for (const l of ledger) {
  const r = byAuth.get(key(l.from, l.nonce));
  if (!r) {
    failures.push(`no receipt for the charged call ${l.url} (nonce ${l.nonce})`);
    continue;
  }
  byAuth.delete(key(l.from, l.nonce));
  const price = priceOf(l.url);
  const a = r.authorization;
  if (a.value !== l.value || a.value !== price) failures.push(`receipt of ${l.url}: value ${a.value}, signed ${l.value}, price ${price}`);
  if (r.transaction !== l.transaction) failures.push(`receipt of ${l.url}: transaction ${r.transaction}, the client was told ${l.transaction}`);
  if (r.resource !== l.url) failures.push(`receipt of ${l.url}: resource ${r.resource}`);
  if (r.network !== "eip155:8453" || r.asset?.toLowerCase() !== USDC) failures.push(`receipt of ${l.url}: ${r.network} ${r.asset}`);
}
for (const r of byAuth.values()) failures.push(`a receipt matches no charged call: ${r.resource} ${r.authorization?.value} ${r.transaction}`);

const total = receipts.reduce((n, r) => n + BigInt(r.authorization?.value ?? 0), 0n);
const counts = ledgers.map(([p, l]) => `${l.length} in ${p.split("/").pop()}`).join(", ");
console.log(`facilitator receipts: ${receipts.length}, total ${total} atomic units; charged calls: ${ledger.length} (${counts})`);
if (failures.length) {
  console.error("FAIL: the receipts do not match the charged calls:");
  for (const f of failures) console.error("  - " + f);
  process.exit(1);
}
console.log("ok: one receipt per charged call, each at the operation's price");
