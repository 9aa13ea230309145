package py

import (
	"fmt"
	"math"
	"math/big"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// Big integers are bounded so that one arithmetic operation always ends
// promptly: a product or power larger than maxIntBits is refused (one
// multiplication of that size takes a fraction of a second), long
// computations (powers, factorials, products of ranges) check the step's
// limits between multiplications, and int <-> str conversion in base 10
// is limited to maxStrDigits digits as in CPython 3.11+ (where a
// quadratic conversion of millions of digits takes minutes).

// maxIntBits bounds the size of an integer built by *, ** and the math
// functions (16 Mbit: about 5 million decimal digits, 2 MB).
const maxIntBits = 1 << 24

// maxStrDigits is CPython's default sys.get_int_max_str_digits().
const maxStrDigits = 4300

// errIntTooLarge is the MemoryError for an integer result past maxIntBits.
func errIntTooLarge(what string, bits float64) error {
	return &PyError{
		Kind: "MemoryError",
		Msg: fmt.Sprintf(
			"%s would have about %.0f bits, past the sandbox's memory limit for one integer (%d bits)",
			what,
			bits,
			maxIntBits,
		),
		Err: ErrMemoryLimit,
	}
}

// checkIntBits refuses an integer result of about bits bits when it is
// past maxIntBits or does not fit in the step's memory allowance.
func checkIntBits(thread *starlark.Thread, what string, bits float64) error {
	if bits > maxIntBits {
		return errIntTooLarge(what, bits)
	}
	return CheckAlloc(thread, int64(bits/8))
}

// intMul returns x*y, refusing a product past maxIntBits.
func intMul(thread *starlark.Thread, x, y starlark.Int) (starlark.Value, error) {
	if _, ok := x.Int64(); ok {
		if _, ok := y.Int64(); ok {
			return x.Mul(y), nil
		}
	}
	if err := checkIntBits(thread, "integer product", float64(x.BigInt().BitLen()+y.BigInt().BitLen())); err != nil {
		return nil, err
	}
	return x.Mul(y), nil
}

// IntPow returns base**e (e >= 0), refusing results past maxIntBits and
// checking the step's limits between the multiplications of large powers.
func IntPow(thread *starlark.Thread, base *big.Int, e int64) (*big.Int, error) {
	bits := float64(base.BitLen()-1) * float64(e)
	if err := checkIntBits(thread, "integer result of **", bits); err != nil {
		return nil, err
	}
	if bits < 1<<16 {
		return new(big.Int).Exp(base, big.NewInt(e), nil), nil
	}
	r, b := big.NewInt(1), new(big.Int).Set(base)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r.Mul(r, b)
		}
		if e > 1 {
			b.Mul(b, b)
		}
		if err := Interrupted(thread); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// IntPowMod returns base**e % mod (e >= 0, mod > 0), checking the step's
// limits between multiplications when the work is large.
func IntPowMod(thread *starlark.Thread, base, e, mod *big.Int) (*big.Int, error) {
	if e.BitLen() <= 4096 && mod.BitLen() <= 4096 {
		return new(big.Int).Exp(base, e, mod), nil
	}
	b := new(big.Int).Mod(base, mod)
	r := big.NewInt(1)
	for i := e.BitLen() - 1; i >= 0; i-- {
		r.Mul(r, r).Mod(r, mod)
		if e.Bit(i) == 1 {
			r.Mul(r, b).Mod(r, mod)
		}
		if err := Interrupted(thread); err != nil {
			return nil, err
		}
	}
	return r.Mod(r, mod), nil
}

// ProdRange returns lo*(lo+1)*...*hi (1 when lo > hi) by binary
// splitting, checking the step's limits between the large products.
func ProdRange(thread *starlark.Thread, lo, hi int64) (*big.Int, error) {
	if lo > hi {
		return big.NewInt(1), nil
	}
	if hi-lo < 256 {
		return new(big.Int).MulRange(lo, hi), nil
	}
	if err := Interrupted(thread); err != nil {
		return nil, err
	}
	mid := lo + (hi-lo)/2
	a, err := ProdRange(thread, lo, mid)
	if err != nil {
		return nil, err
	}
	b, err := ProdRange(thread, mid+1, hi)
	if err != nil {
		return nil, err
	}
	return a.Mul(a, b), nil
}

// log2Factorial is log2(n!).
func log2Factorial(n int64) float64 {
	lg, _ := math.Lgamma(float64(n) + 1)
	return lg / math.Ln2
}

// IntFactorial is math.factorial(n) for n >= 0.
func IntFactorial(thread *starlark.Thread, n int64) (*big.Int, error) {
	if err := checkIntBits(thread, "factorial("+fmt.Sprint(n)+")", log2Factorial(n)); err != nil {
		return nil, err
	}
	return ProdRange(thread, 1, n)
}

// IntComb is math.comb(n, k) for 0 <= k <= n.
func IntComb(thread *starlark.Thread, n, k int64) (*big.Int, error) {
	k = min(k, n-k)
	what := fmt.Sprintf("comb(%d, %d)", n, k)
	if err := checkIntBits(thread, what, log2Factorial(n)-log2Factorial(k)-log2Factorial(n-k)); err != nil {
		return nil, err
	}
	// The numerator n!/(n-k)! is built first: bound it too.
	if err := checkIntBits(thread, "the numerator of "+what, (log2Factorial(n)-log2Factorial(n-k))/2); err != nil {
		return nil, err
	}
	num, err := ProdRange(thread, n-k+1, n)
	if err != nil {
		return nil, err
	}
	den, err := ProdRange(thread, 1, k)
	if err != nil {
		return nil, err
	}
	return num.Quo(num, den), nil
}

// IntPerm is math.perm(n, k) for 0 <= k <= n.
func IntPerm(thread *starlark.Thread, n, k int64) (*big.Int, error) {
	if err := checkIntBits(thread, fmt.Sprintf("perm(%d, %d)", n, k), log2Factorial(n)-log2Factorial(n-k)); err != nil {
		return nil, err
	}
	return ProdRange(thread, n-k+1, n)
}

// errStrDigits is CPython's ValueError for str(i) of more than
// maxStrDigits digits.
func errStrDigits() error {
	return Errorf(
		"ValueError",
		"Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit",
		maxStrDigits,
	)
}

// checkParseDigits is CPython's limit on int(s) in a base that is not a
// power of two: s may have at most maxStrDigits digits.
func checkParseDigits(digits string, base int) error {
	if base&(base-1) == 0 || len(digits) <= maxStrDigits {
		return nil
	}
	return Errorf(
		"ValueError",
		"Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit",
		maxStrDigits,
		len(digits),
	)
}

// intDecimal returns the decimal digits of x (with its sign), or CPython's
// ValueError when there would be more than maxStrDigits of them.
func intDecimal(x *big.Int) (string, error) {
	// 14300 bits have at least 4305 digits: no need to convert to know.
	if x.BitLen() > 14300 {
		return "", errStrDigits()
	}
	s := x.Text(10)
	digits := len(s)
	if x.Sign() < 0 {
		digits--
	}
	if digits > maxStrDigits {
		return "", errStrDigits()
	}
	return s, nil
}
