package compile

// rlm: instruction fusion. The interpreter spends most of a simple
// instruction's time in its dispatch (step count, cancellation check,
// operand decoding), so the commonest short sequences of model code are
// fused into one instruction: CONSTANT k followed by a binary operator
// (x % 3, i * 2, n > 0, w in "aeiou") becomes OPK, and LOCAL l before
// that becomes LOCALOPK; LOCAL l1, LOCAL l2 and an operator (x * x,
// i < n, w in seen) become LOCALOPL. The interpreter pushes the operands
// itself and runs the operator's code, counting the steps of the
// instructions it replaced, so step counts and results are unchanged. Fusion happens
// within a block (jumps only target block starts), before addresses are
// assigned.

// rlm: CONSTANT k followed by INDEX (a record's field: r["id"], a
// dict's value, a list's element at a constant index) becomes INDEXK.

// rlm: GLOBAL g followed by LOCAL l (a call of a global function with a
// local argument: f(x), len(s)) becomes GLOBALLOCAL, which pushes both;
// the interpreter also takes a CALL of one argument right after it.

// Fuse turns fusion on; tests turn it off to compare.
var Fuse = true

// Field widths of the fused operands.
const (
	fuseOpBits    = 5 // op-LT, LT..IN
	fuseLocalBits = 8 // LOCALOPK's local index, LOCALOPL's first
)

// FusedOperator returns the binary operator of an OPK, LOCALOPK or
// LOCALOPL argument.
func FusedOperator(arg uint32) Opcode { return LT + Opcode(arg&(1<<fuseOpBits-1)) }

// FusedConstant returns the constant index of an OPK argument.
func FusedConstant(arg uint32) uint32 { return arg >> fuseOpBits }

// FusedLocal returns the local index and constant index of a LOCALOPK
// argument, or the two local indexes of a LOCALOPL argument.
func FusedLocal(arg uint32) (local, k uint32) {
	return arg >> fuseOpBits & (1<<fuseLocalBits - 1), arg >> (fuseOpBits + fuseLocalBits)
}

// fusedPeak is how far above its starting depth a fused instruction's
// operands take the operand stack while it runs.
func fusedPeak(op Opcode) int {
	switch op {
	case OPK:
		return 1
	case LOCALOPK, LOCALOPL:
		return 2
	}
	return 0
}

// fuse returns insns with CONSTANT+operator, LOCAL+CONSTANT+operator
// and LOCAL+LOCAL+operator sequences fused, reusing the slice.
func fuse(insns []insn) []insn {
	if !Fuse {
		return insns
	}
	out := insns[:0]
	for i := 0; i < len(insns); i++ {
		in := insns[i]
		if in.op == CONSTANT && i+1 < len(insns) && isFusable(insns[i+1].op) && in.arg < 1<<(32-fuseOpBits-fuseLocalBits) {
			next := insns[i+1]
			fused := insn{op: OPK, arg: in.arg<<fuseOpBits | uint32(next.op-LT), line: next.line, col: next.col}
			if n := len(out); n > 0 && out[n-1].op == LOCAL && out[n-1].arg < 1<<fuseLocalBits {
				fused.op = LOCALOPK
				fused.arg = in.arg<<(fuseOpBits+fuseLocalBits) | out[n-1].arg<<fuseOpBits | uint32(next.op-LT)
				out = out[:n-1]
			}
			out = append(out, fused)
			i++
			continue
		}
		if in.op == CONSTANT && i+1 < len(insns) && insns[i+1].op == INDEX {
			// x[k]: INDEXK, at the INDEX's position (its errors').
			next := insns[i+1]
			out = append(out, insn{op: INDEXK, arg: in.arg, line: next.line, col: next.col})
			i++
			continue
		}
		if in.op == LOCAL && i+1 < len(insns) && isFusable(insns[i+1].op) && in.arg < 1<<(32-fuseOpBits-fuseLocalBits) {
			if n := len(out); n > 0 && out[n-1].op == LOCAL && out[n-1].arg < 1<<fuseLocalBits {
				next := insns[i+1]
				out[n-1] = insn{op: LOCALOPL, arg: in.arg<<(fuseOpBits+fuseLocalBits) | out[n-1].arg<<fuseOpBits | uint32(next.op-LT), line: next.line, col: next.col}
				i++
				continue
			}
		}
		out = append(out, in)
	}
	return fuseGlobalLocal(out)
}

// fuseGlobalLocal returns insns with GLOBAL g followed by LOCAL l on the
// same line (a call such as f(x), len(s) or _py_method(s, ...)) fused
// into GLOBALLOCAL, and GLOBAL g followed by GLOBAL g2 (the same at top
// level, where variables are globals: counts[w], len(w)) into
// GLOBALGLOBAL, reusing the slice. It runs after the operator
// fusions, which take precedence over it for their LOCALs.
func fuseGlobalLocal(insns []insn) []insn {
	out := insns[:0]
	for i := 0; i < len(insns); i++ {
		in := insns[i]
		if in.op == GLOBAL && i+1 < len(insns) {
			if next := insns[i+1]; (next.op == LOCAL || next.op == GLOBAL) && next.arg < 1<<fuseLocalBits &&
				next.line == in.line && in.arg < 1<<(32-fuseLocalBits) {
				op := GLOBALLOCAL
				if next.op == GLOBAL {
					op = GLOBALGLOBAL
				}
				out = append(out, insn{op: op, arg: in.arg<<fuseLocalBits | next.arg, line: in.line, col: in.col})
				i++
				continue
			}
		}
		out = append(out, in)
	}
	return out
}

// FusedGlobalLocal returns the global and local indexes of a GLOBALLOCAL
// argument, or the two global indexes of a GLOBALGLOBAL argument.
func FusedGlobalLocal(arg uint32) (global, local uint32) {
	return arg >> fuseLocalBits, arg & (1<<fuseLocalBits - 1)
}

// isFusable reports whether op is a binary operator that fusion takes.
func isFusable(op Opcode) bool { return op >= LT && op <= IN }
