package sandbox

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecimalContext: getcontext() is the session's (a setting carries
// across steps, not into another session), and bad settings and huge
// exponents fail with Python errors instead of building huge numbers.
func TestDecimalContext(t *testing.T) {
	s := New(Config{})
	out, err := s.Exec(context.Background(), "from decimal import Decimal, getcontext\ngetcontext().prec = 5\nprint(Decimal(1) / 3)")
	require.NoError(t, err)
	again, err := s.Exec(context.Background(), "print(Decimal(2) / 3, getcontext().prec)")
	require.NoError(t, err)
	assert.Equal(t, "0.33333\n0.66667 5\n", out.Output+again.Output)
	other, _ := execIn(t, Config{}, "from decimal import Decimal\nprint(Decimal(1) / 3)")
	assert.Equal(t, "0.3333333333333333333333333333\n", other)

	tests := []struct{ code, want string }{
		{"import decimal\ndecimal.getcontext().prec = 0", "ValueError: valid range for prec is [1, 10000] in the sandbox"},
		{"import decimal\ndecimal.getcontext().rounding = 'UP'", "TypeError: valid values for rounding are:"},
		{"from decimal import Decimal\nDecimal('1e999999')", "decimal.Overflow: [<class 'decimal.Overflow'>]"},
		{
			"from decimal import Decimal\nDecimal('1e90000') + Decimal('1e-90000')",
			"decimal.InvalidOperation: the sandbox's decimal does not align operands",
		},
		{
			"from decimal import Decimal\nDecimal(2) ** Decimal('0.5')",
			"decimal.InvalidOperation: the sandbox's decimal raises only to integral powers",
		},
		{"from decimal import Decimal\nDecimal('NaN') + 1", "decimal.InvalidOperation: arithmetic on NaN is not supported in the sandbox"},
		{"from fractions import Fraction\nFraction(2) ** (10**7)", "OverflowError: exponent too large"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, got := execIn(t, Config{}, tt.code)
			assert.Contains(t, got, tt.want)
		})
	}
}
