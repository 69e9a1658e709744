// Command walk is run by .ci/run against a server: with a Go client that
// oapi-codegen generated from the server's /v1/openapi.json (package
// client), it walks brand > model > generation > variant > specs handing
// each id back as received, as a user of the API would.
//
// Usage: walk BASE_URL API_KEY
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"clientcheck/client"
)

func main() {
	if err := walk(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "generated client:", err)
		os.Exit(1)
	}
}

func walk(base, key string) error {
	c, err := client.NewClientWithResponses(base+"/v1", client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Api-Key", key)
		return nil
	}))
	if err != nil {
		return err
	}
	ctx := context.Background()
	brands, err := c.ListBrandsWithResponse(ctx, &client.ListBrandsParams{})
	if err != nil || brands.JSON200 == nil || len(brands.JSON200.Data) == 0 {
		return fmt.Errorf("list brands: %v (status %d)", err, status(brands.HTTPResponse))
	}
	slug := brands.JSON200.Data[0].Slug
	models, err := c.ListModelsWithResponse(ctx, slug, &client.ListModelsParams{})
	if err != nil || models.JSON200 == nil || len(models.JSON200.Data) == 0 {
		return fmt.Errorf("list models of %s: %v (status %d)", slug, err, status(models.HTTPResponse))
	}
	modelID, err := models.JSON200.Data[0].ModelId.AsModelModelId0()
	if err != nil {
		return fmt.Errorf("model id: %w", err)
	}
	gens, err := c.ListGenerationsWithResponse(ctx, modelID, &client.ListGenerationsParams{})
	if err != nil || gens.JSON200 == nil || len(gens.JSON200.Data) == 0 {
		return fmt.Errorf("list generations of %s: %v (status %d)", modelID, err, status(gens.HTTPResponse))
	}
	genID, err := gens.JSON200.Data[0].GenerationId.AsGenerationGenerationId0()
	if err != nil {
		return fmt.Errorf("generation id: %w", err)
	}
	variants, err := c.ListGenerationVariantsWithResponse(ctx, genID, &client.ListGenerationVariantsParams{})
	if err != nil || variants.JSON200 == nil || len(variants.JSON200.Data) == 0 {
		return fmt.Errorf("list variants of %s: %v (status %d)", genID, err, status(variants.HTTPResponse))
	}
	variantID, err := variants.JSON200.Data[0].VariantId.AsVariantVariantId0()
	if err != nil {
		return fmt.Errorf("variant id: %w", err)
	}
	specs, err := c.GetVariantSpecsWithResponse(ctx, variantID, &client.GetVariantSpecsParams{})
	if err != nil || specs.JSON200 == nil {
		return fmt.Errorf("specs of %s: %v (status %d)", variantID, err, status(specs.HTTPResponse))
	}
	fmt.Printf("generated client walked %s > %s > %s > %s (%s): %d specs\n", slug, modelID, genID, variantID, specs.JSON200.Data.DisplayName, len(specs.JSON200.Data.Specs))
	if len(specs.JSON200.Data.Specs) == 0 {
		return fmt.Errorf("no specs")
	}
	return nil
}

func status(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}
