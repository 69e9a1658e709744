#!/usr/bin/env python3
"""Walk the vehicle catalogue API with requests, as a Python user would.

    python3 walk.py BASE_URL API_KEY [--demo]

brand > model > generation > variants (every page, following the cursor in
links.next) > the spec sheet of the first variant. With --demo (a demo key)
it lists the 40 demo cars and reads the spec sheet of each: more calls than
the demo tier's 10 a minute, so it meets a 429 and waits as Retry-After says.

Every call goes through get(), which is the part worth copying:
  - 429 (a limit of the key or the network) and 503 (our side, e.g. the
    catalogue still loading or metering unavailable) are retried after the
    Retry-After delay, a bounded number of times;
  - any other error is an RFC 9457 problem (application/problem+json) whose
    "detail" says what was wrong: raise it, do not retry.
Ids are handed back exactly as received: a full-catalogue key sees integer
ids, a demo key opaque tokens (v_…, m_…); never build them yourself.
"""

import sys
import time

import requests

RETRIES = 5          # attempts after the first, for 429 and 503
MAX_WAIT_S = 65      # the longest Retry-After honoured (a minute window)


class APIError(Exception):
    """A problem answer of the API (RFC 9457)."""

    def __init__(self, response):
        try:
            problem = response.json()
        except ValueError:
            problem = {"title": response.reason, "detail": response.text[:200]}
        self.status = response.status_code
        self.type = problem.get("type", "about:blank")
        super().__init__(f"{self.status} {problem.get('title')}: {problem.get('detail')} ({self.type})")


class Catalogue:
    def __init__(self, base_url, api_key):
        self.base = base_url.rstrip("/") + "/v1"
        self.http = requests.Session()
        self.http.headers.update({"X-Api-Key": api_key, "Accept": "application/json"})
        self.waits = 0  # Retry-After delays honoured, for the caller to report

    def get(self, path, **params):
        """GET a path under /v1 and return its JSON body."""
        for attempt in range(RETRIES + 1):
            r = self.http.get(self.base + path, params=params, timeout=30)
            if r.status_code in (429, 503) and attempt < RETRIES:
                wait = min(int(r.headers.get("Retry-After", "1")), MAX_WAIT_S)
                print(f"  {r.status_code} on {path}: waiting {wait} s as Retry-After says", file=sys.stderr)
                self.waits += 1
                time.sleep(wait)
                continue
            if not r.ok:
                raise APIError(r)
            return r.json()
        raise AssertionError("unreachable")

    def pages(self, path, **params):
        """Yield every item of a list, page by page, following the cursor."""
        cursor = None
        while True:
            page = self.get(path, **params, **({"cursor": cursor} if cursor else {}))
            yield from page["data"]
            cursor = page.get("links", {}).get("next")
            if not cursor:
                return


def walk_full(api):
    brand = api.get("/brands", limit=1)["data"][0]
    model = api.get(f"/brands/{brand['slug']}/models", limit=1)["data"][0]
    generations = api.get(f"/models/{model['model_id']}/generations")["data"]
    generation = generations[-1]  # the newest
    variants = list(api.pages(f"/generations/{generation['generation_id']}/variants", limit=5))
    ids = [v["variant_id"] for v in variants]
    if len(set(ids)) != len(ids):
        raise AssertionError(f"a variant came twice over the pages: {ids}")
    specs = api.get(f"/variants/{ids[0]}/specs", locale="de")["data"]
    print(f"{brand['name']} > {model['name']} > {generation['name']}: {len(variants)} variants "
          f"over {-(-len(variants) // 5)} pages; {specs['display_name']}: {len(specs['specs'])} specs in German")
    # A problem names what was wrong.
    try:
        api.get("/variants", fuel="steam")
        raise AssertionError("an unknown fuel was accepted")
    except APIError as e:
        if e.status != 400 or "fuel" not in str(e):
            raise
        print(f"an unknown fuel is refused: {e}")


def walk_demo(api):
    demo = api.get("/demo")["data"]
    cars = demo["variants"]
    read = 0
    for car in cars[:12]:
        specs = api.get(f"/variants/{car['variant_id']}/specs")["data"]
        read += 1 if specs["specs"] else 0
    print(f"demo: {demo['variant_count']} cars; read {read} spec sheets, waited {api.waits} times on Retry-After")
    if api.waits == 0:
        raise AssertionError("13 calls in a minute on a demo key met no limit")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    api = Catalogue(argv[1], argv[2])
    if "--demo" in argv[3:]:
        walk_demo(api)
    else:
        walk_full(api)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
