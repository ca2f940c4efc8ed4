package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// reportRows decodes the rows of a -format json report.
func reportRows[R any](t *testing.T, b []byte) []R {
	t.Helper()
	var report struct {
		Rows []R `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b, &report), "json\n%s", b)
	return report.Rows
}
