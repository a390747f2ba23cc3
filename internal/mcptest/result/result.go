// Package result holds the structured results of the testkit tools; their
// output schemas are reflected from these types.
package result

// Sum is the result of the add tool.
type Sum struct {
	Sum float64 `json:"sum" jsonschema:"description=a + b"`
}
