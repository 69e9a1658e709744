package mcp

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaOptions maps the types whose JSON is not what reflection sees.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[ID](): {
		Description: "An id from a search_catalogue or filter_catalogue result (variant_id), used as is.",
		AnyOf:       []*jsonschema.Schema{{Type: "string", MinLength: jsonschema.Ptr(1)}, {Type: "integer", Minimum: jsonschema.Ptr(1.0)}},
	},
	reflect.TypeFor[Value](): {
		Description: "A number, a boolean, a localized label or a text.",
		AnyOf:       []*jsonschema.Schema{{Type: "number"}, {Type: "boolean"}, {Type: "string"}, {Type: "null"}},
	},
}}

// schemaFor infers the schema of T in the most portable spelling: clients
// that map tool schemas onto a single-type dialect (the OpenAPI subset of
// Gemini function declarations; the Inspector's --strict check) refuse a
// list of types, which jsonschema-go infers for every slice and pointer.
func schemaFor[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		return nil, err
	}
	portable(s)
	return s, nil
}

// portable rewrites ["null","array"] as "array" (no argument or REST body
// carries a null list) and ["null",T] as anyOf null or T.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for _, p := range s.Properties {
		portable(p)
	}
	portable(s.Items)
	portable(s.AdditionalProperties)
	for _, a := range s.AnyOf {
		portable(a)
	}
	if len(s.Types) != 2 || s.Types[0] != "null" {
		return
	}
	if s.Types[1] == "array" {
		s.Types, s.Type = nil, "array"
		return
	}
	inner := *s
	inner.Types, inner.Type, inner.Description = nil, s.Types[1], ""
	*s = jsonschema.Schema{Description: s.Description, AnyOf: []*jsonschema.Schema{{Type: "null"}, &inner}}
}

// outputSchema is the schema of a tool's structuredContent: the REST body
// T, or with payments on, either that or a PaymentOutput.
func outputSchema[T any](payments bool) (*jsonschema.Schema, error) {
	body, err := schemaFor[T]()
	if err != nil || !payments {
		return body, err
	}
	pay, err := schemaFor[PaymentOutput]()
	if err != nil {
		return nil, err
	}
	body.Description = "The answer: the same body the REST operation returns."
	pay.Description = "With isError, for a caller without an API key: the x402 offer to pay for the call (and x402/payment-response when a payment could not be settled)."
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{body, pay}}, nil
}

// prop returns the schema of a property, panicking on a typo: schemas are
// built once in New and covered by tests.
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic(fmt.Sprintf("BUG: schema has no property %q", name))
	}
	return p
}

// body returns the REST-body branch of an output schema.
func body(out *jsonschema.Schema) *jsonschema.Schema {
	if len(out.AnyOf) > 0 {
		return out.AnyOf[0]
	}
	return out
}
