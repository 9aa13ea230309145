package runs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWithoutNewOrigin: resuming a run recorded before exec events had
// an origin compares the re-executed events without it; a recording that
// has it is compared as it is.
func TestWithoutNewOrigin(t *testing.T) {
	tests := []struct {
		name, prev, data, want string
	}{
		{"old recording", `{"block":0,"error":"E: x"}`, `{"block":0,"error":"E: x","origin":"raise"}`, `{"block":0,"error":"E: x"}`},
		{"new recording", `{"error":"E: x","origin":"engine"}`, `{"error":"E: x","origin":"raise"}`, `{"error":"E: x","origin":"raise"}`},
		{"no error", `{"block":0,"output":"a"}`, `{"block":0,"output":"a"}`, `{"block":0,"output":"a"}`},
		{"origin inside a string", `{"output":"x"}`, `{"output":",\"origin\":\"raise\""}`, `{"output":",\"origin\":\"raise\""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(withoutNewOrigin([]byte(tt.prev), []byte(tt.data))))
		})
	}
}
