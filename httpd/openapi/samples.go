package openapi

import (
	"encoding/json"
	"sort"
	"strings"
)

// codeSamples gives every operation a curl command (x-codeSamples, which
// Redoc shows beside the operation): the server's address from $BASE, a
// key from $KEY where one is needed, the example's arguments from
// Inputs.Samples.
func (b *builder) codeSamples() {
	var paths []string
	for p := range b.paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		for method, o := range b.paths[path].(obj) {
			op, ok := o.(obj)
			if !ok {
				continue
			}
			id, _ := op["operationId"].(string)
			target := b.in.Samples[strings.TrimSuffix(id, "Head")]
			if target == "" {
				target = path
			}
			cmd := "curl -sS"
			switch method {
			case "head":
				cmd += " -I"
			case "post":
				cmd += " -X POST"
			}
			cmd += ` "$BASE/v1` + target + `"`
			if sec, ok := op["security"].([]obj); !ok || len(sec) > 0 {
				cmd += ` \` + "\n  " + `-H "X-Api-Key: $KEY"`
			}
			if rb, ok := op["requestBody"].(obj); ok {
				ex := rb["content"].(obj)["application/json"].(obj)["example"]
				body, _ := json.Marshal(ex)
				cmd += ` \` + "\n  " + `-H "Content-Type: application/json" \` + "\n  " + `-d '` + strings.ReplaceAll(string(body), "'", `'\''`) + `'`
			}
			op["x-codeSamples"] = []obj{{"lang": "Shell", "label": "curl", "source": cmd}}
		}
	}
}
