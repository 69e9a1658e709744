// Walks the catalogue with a client generated from the service's own
// description: brand > model > generation > variant > specs, then a filter
// by fuel. tsc checks it against the generated types, so the two lines
// expected to be type errors prove that the enumerations are typed as
// such, not as string: a typo in a fuel does not compile.
import createClient from "openapi-fetch";
import type { paths, components } from "./schema.js";

const [base, key] = process.argv.slice(2);
if (!base || !key) {
  console.error("usage: node dist/walk.js BASE_URL API_KEY");
  process.exit(2);
}
const api = createClient<paths>({ baseUrl: base + "/v1", headers: { "X-Api-Key": key } });

type Fuel = NonNullable<NonNullable<paths["/variants"]["get"]["parameters"]["query"]>["fuel"]>;
const diesel: Fuel = "diesel";
// @ts-expect-error: kerosene is not a fuel of the catalogue
const kerosene: Fuel = "kerosene";
void kerosene;
type Units = NonNullable<NonNullable<paths["/variants/{id}/specs"]["get"]["parameters"]["query"]>["units"]>;
// @ts-expect-error: units is metric or imperial
const furlongs: Units = "furlongs";
void furlongs;

function must<T>(what: string, data: T | undefined, status: number): T {
  if (data === undefined) {
    throw new Error(`${what}: HTTP ${status}`);
  }
  return data;
}

const brands = await api.GET("/brands", { params: { query: { limit: 3 } } });
const brand = must("brands", brands.data, brands.response.status).data[0];
if (!brand) throw new Error("no brand");
const models = await api.GET("/brands/{slug}/models", { params: { path: { slug: brand.slug }, query: { limit: 1 } } });
const model = must("models", models.data, models.response.status).data[0];
if (!model) throw new Error(`no model of ${brand.slug}`);
const gens = await api.GET("/models/{id}/generations", { params: { path: { id: String(model.model_id) }, query: { limit: 1 } } });
const gen = must("generations", gens.data, gens.response.status).data[0];
if (!gen) throw new Error(`no generation of ${model.name}`);
const vars = await api.GET("/generations/{id}/variants", { params: { path: { id: String(gen.generation_id) }, query: { limit: 1 } } });
const variant: components["schemas"]["Variant"] | undefined = must("variants", vars.data, vars.response.status).data[0];
if (!variant) throw new Error(`no variant of ${gen.name}`);
const specs = await api.GET("/variants/{id}/specs", { params: { path: { id: String(variant.variant_id) }, query: { locale: "de", units: "imperial" } } });
const sheet = must("specs", specs.data, specs.response.status);
if (sheet.meta.units !== "imperial" || Object.keys(sheet.data.specs).length === 0) {
  throw new Error("the spec sheet is not the one asked for");
}
const filtered = await api.GET("/variants", { params: { query: { fuel: diesel, limit: 2 } } });
for (const v of must("filter", filtered.data, filtered.response.status).data) {
  if (v.fuel_slug !== "diesel") throw new Error(`a ${v.fuel_slug} car in a diesel filter`);
}
// An unknown fuel, sent past the types, is a 400 naming the values taken.
const bad = await api.GET("/variants", { params: { query: { fuel: "kerosene" as Fuel } } });
if (bad.response.status !== 400 || !bad.error?.detail?.includes("diesel")) {
  throw new Error(`an unknown fuel answered ${bad.response.status}`);
}
console.log(`TypeScript client: ${brand.name} > ${model.name} > ${gen.name} > ${variant.display_name}: ${Object.keys(sheet.data.specs).length} specs; fuel typed as ${JSON.stringify(diesel)} | …`);
