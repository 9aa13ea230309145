package starlark

// This file defines the bytecode interpreter.

import (
	"fmt"
	"os"
	"slices"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
	"github.com/rlmhq/rlm/internal/starlark/internal/spell"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
)

const vmdebug = false // TODO(adonovan): use a bitfield of specific kinds of error.

// TODO(adonovan):
// - optimize position table.
// - opt: record MaxIterStack during compilation and preallocate the stack.

func (fn *Function) CallInternal(thread *Thread, args Tuple, kwargs []Tuple) (Value, error) {
	return fn.run(thread, args, kwargs, false)
}

// run is CallInternal. rlm: when pushed is true, the caller (callFast,
// rlm_calls.go) has pushed fn's frame itself instead of calling Call, and
// run does what Call would do after CallInternal: errors become
// EvalErrors while the frame is on the stack, and the frame is popped
// when run returns (in its deferred function, as Call's defer did).
func (fn *Function) run(thread *Thread, args Tuple, kwargs []Tuple, pushed bool) (Value, error) {
	// Postcondition: args is not mutated. This is stricter than required by Callable,
	// but allows CALL to avoid a copy.

	f := fn.funcode
	if f.Prog.Recursion {
		// prevent stack overflow
		//
		// Each CallInternal recursion (via Call) uses ~1.4KB,
		// but the stack limit is on the order of 1GB, so a
		// maximum of about 700K recursive calls is possible.
		// Limit it to much less here.
		// rlm: both limits tested only past the thread's recursion
		// limit (callDepthExceeded answers nil below it), a comparison
		// instead of a call.
		if n := len(thread.stack); n > thread.maxCallDepth || n > 100_000 {
			if n > 100_000 {
				return nil, thread.callFailed(fmt.Errorf("Starlark stack overflow"), pushed)
			}
			// rlm: Python's recursion limit (rlm_calls.go).
			if err := thread.callDepthExceeded(f.Name); err != nil {
				return nil, thread.callFailed(err, pushed)
			}
		}
	} else {
		// detect recursion
		for _, fr := range thread.stack[:len(thread.stack)-1] {
			// We look for the same function code,
			// not function value, otherwise the user could
			// defeat the check by writing the Y combinator.
			if frfn, ok := fr.Callable().(*Function); ok && frfn.funcode == f {
				return nil, thread.callFailed(fmt.Errorf("function %s called recursively", fn.Name()), pushed)
			}
		}
	}

	fr := thread.frameAt(0)

	// Allocate space for stack and locals.
	// Logically these do not escape from this frame
	// (See https://github.com/golang/go/issues/20533.)
	//
	// This heap allocation looks expensive, but I was unable to get
	// more than 1% real time improvement in a large alloc-heavy
	// benchmark (in which this alloc was 8% of alloc-bytes)
	// by allocating space for 8 Values in each frame, or
	// by allocating stack by slicing an array held by the Thread
	// that is expanded in chunks of min(k, nspace), for k=256 or 1024.
	nlocals := len(f.Locals)
	nspace := nlocals + f.MaxStack
	// rlm: from the thread's value stack, no allocation per call (rlm_calls.go).
	space, spaceMark := thread.allocSpace(nspace)
	locals := space[:nlocals:nlocals] // local variables, starting with parameters
	stack := space[nlocals:]          // operand stack

	// Digest arguments and set parameters.
	err := setArgs(locals, fn, args, kwargs)
	if err != nil {
		thread.freeSpace(space, spaceMark) // rlm
		return nil, thread.callFailed(thread.evalError(err), pushed)
	}

	fr.locals = locals

	if vmdebug {
		fmt.Printf("Entering %s @ %s\n", f.Name, f.Position(0))
		fmt.Printf("%d stack, %d locals\n", len(stack), len(locals))
		defer fmt.Println("Leaving ", f.Name)
	}

	// Spill indicated locals to cells.
	// Each cell is a separate alloc to avoid spurious liveness.
	for _, index := range f.Cells {
		locals[index] = &cell{locals[index]}
	}

	// TODO(adonovan): add static check that beneath this point
	// - there is exactly one return statement
	// - there is no redefinition of 'err'.

	// stack of active iterators; rlm: from the thread's (allocIters)
	iterstack, iterMark := thread.allocIters(f.MaxIterStack)
	iterSpace := iterstack

	// Use defer so that application panics can pass through
	// interpreter without leaving thread in a bad state.
	defer func() {
		// ITERPOP the rest of the iterator stack.
		for _, iter := range iterstack {
			iter.Done()
		}

		fr.locals = nil
		thread.freeSpace(space, spaceMark) // rlm
		thread.freeIters(iterSpace, iterMark)
		if pushed {
			// rlm: callFast pushed it; builtins that panicked
			// (callBuiltin) may have left frames above it.
			if thread.stack[len(thread.stack)-1] != fr {
				thread.popAbove(fr)
			}
			thread.popFrame(fr)
		}
	}()

	sp := 0
	var pc uint32
	var result Value
	// rlm: the code as a pointer, read without bounds checks (codeAt):
	// the compiler encodes every instruction and operand within it.
	codep := unsafe.Pointer(unsafe.SliceData(f.Code))
loop:
	for {
		// rlm: one comparison for the step limit and cancellation
		// (stepSlow).
		thread.Steps++
		if thread.Steps >= thread.stepLimit.Load() {
			if err2 := thread.stepSlow(); err2 != nil {
				err = err2
				break loop
			}
		}

		fr.pc = pc

		// rlm: the compiler's code is read without bounds checks:
		// every instruction and operand it encodes lies within it.
		op := compile.Opcode(codeAt(codep, pc))
		pc++
		var arg uint32
		if op >= compile.OpcodeArgMin {
			// TODO(adonovan): opt: profile this.
			// Perhaps compiling big endian would be less work to decode?
			argpc := pc
			// rlm: most operands are one byte: no shift loop for them.
			if b := codeAt(codep, pc); b < 0x80 {
				arg = uint32(b)
				pc++
			} else if b2 := codeAt(codep, pc+1); b2 < 0x80 {
				// rlm: two bytes, e.g. a CALL's (n positional << 8).
				arg = uint32(b&0x7f) | uint32(b2)<<7
				pc += 2
			} else {
				for s := uint(0); ; s += 7 {
					b := codeAt(codep, pc)
					pc++
					arg |= uint32(b&0x7f) << s
					if b < 0x80 {
						break
					}
				}
			}
			if op <= compile.ITERJMP {
				// rlm: a jump's operand is padded to 4 bytes with NOPs:
				// skip them, so they are not run as instructions (and
				// steps).
				pc = argpc + 4
			}
		}
		if vmdebug {
			fmt.Fprintln(os.Stderr, stack[:sp]) // very verbose!
			compile.PrintOp(f, fr.pc, op, arg)
		}

	dispatch:
		switch op {
		case compile.NOP:
			// nop

		// rlm: fused instructions (internal/compile/fuse.go) compute two
		// small ints themselves, else push their operands and run their
		// operator's case, counting the steps of the instructions they
		// stand for.
		case compile.OPK, compile.LOCALOPK, compile.LOCALOPL:
			var x, y Value
			if op == compile.OPK {
				sp--
				x = stack[sp]
				y = fn.module.constants[compile.FusedConstant(arg)]
				thread.Steps++
			} else {
				l1, l2 := compile.FusedLocal(arg)
				x = locals[l1]
				if op == compile.LOCALOPK {
					y = fn.module.constants[l2]
				} else {
					y = locals[l2]
				}
				if x == nil || y == nil {
					if x != nil {
						l1 = l2
						thread.Steps++ // LOCAL l1 ran
					}
					err = fmt.Errorf("local variable %s referenced before assignment", f.Locals[l1].Name)
					break loop
				}
				thread.Steps += 2
			}
			op = compile.FusedOperator(arg)
			// rlm: two ints in the inline int32 form computed here, without
			// pushing them for the operator's case (no int64 overflow is
			// possible); a comparison takes a CJMP right after it.
			if xi, ok := x.(Int); ok {
				if yi, ok := y.(Int); ok {
					if a, b, ok := small32Pair(xi, yi); ok {
						if op <= compile.NEQ {
							r := fusedCompare(op, a, b)
							if codeAt(codep, pc) == byte(compile.CJMP) {
								thread.Steps++
								if r {
									pc = jumpTarget(codep, pc+1)
								} else if pc += 5; codeAt(codep, pc) == byte(compile.JMP) {
									// a filter's jump back to its loop
									// (or an if's past its else), taken
									// too, counting its step.
									pc = jumpTarget(codep, pc+1)
									thread.Steps++
								}
								break
							}
							stack[sp] = Bool(r)
							sp++
							break
						}
						r, done := int64(0), true
						switch op {
						case compile.PLUS:
							r = a + b
						case compile.MINUS:
							r = a - b
						case compile.STAR:
							r = a * b
						case compile.PERCENT, compile.SLASHSLASH:
							if b > 0 {
								// a 32-bit division, floored as Python's.
								q, m := int32(a)/int32(b), int32(a)%int32(b)
								if m < 0 {
									q, m = q-1, m+int32(b)
								}
								if op == compile.PERCENT {
									r = int64(m)
								} else {
									r = int64(q)
								}
							} else {
								done = false
							}
						default:
							done = false
						}
						if done {
							if z, ok := smallInt(r); ok {
								stack[sp] = z
							} else {
								stack[sp] = MakeInt64(r)
							}
							sp++
							// rlm: an OPK right after it (the `== 0` of
							// `i % 3 == 0`) is taken at once, at its own
							// pc, counting its step.
							if codeAt(codep, pc) == byte(compile.OPK) {
								if b := codeAt(codep, pc+1); b < 0x80 {
									fr.pc = pc
									pc += 2
									op, arg = compile.OPK, uint32(b)
									thread.Steps++
									goto dispatch
								}
							}
							break
						}
					}
				}
			}
			stack[sp] = x
			stack[sp+1] = y
			sp += 2
			goto dispatch

		case compile.DUP:
			stack[sp] = stack[sp-1]
			sp++

		case compile.DUP2:
			stack[sp] = stack[sp-2]
			stack[sp+1] = stack[sp-1]
			sp += 2

		case compile.POP:
			sp--

		case compile.EXCH:
			stack[sp-2], stack[sp-1] = stack[sp-1], stack[sp-2]

		case compile.EQL, compile.NEQ, compile.GT, compile.LT, compile.LE, compile.GE:
			op := syntax.Token(op-compile.EQL) + syntax.EQL
			y := stack[sp-1]
			x := stack[sp-2]
			sp -= 2
			var r, fast bool
			// rlm: two ints in the inline int32 form compared in the loop.
			if xi, ok := x.(Int); ok {
				if yi, ok := y.(Int); ok {
					if a, b, ok := small32Pair(xi, yi); ok {
						fast = true
						switch op {
						case syntax.EQL:
							r = a == b
						case syntax.NEQ:
							r = a != b
						case syntax.LT:
							r = a < b
						case syntax.LE:
							r = a <= b
						case syntax.GT:
							r = a > b
						default:
							r = a >= b
						}
					}
				}
			}
			// rlm: ints, floats and strings without Compare (int_fast.go).
			if !fast {
				r, fast = fastCompare(op, x, y)
			}
			if !fast {
				var err2 error
				if r, err2 = Compare(op, x, y); err2 != nil {
					err = err2
					break loop
				}
			}
			// rlm: a CJMP right after the comparison (an if or a
			// comprehension's filter) is taken here, saving its dispatch
			// (it counts its step).
			if codeAt(codep, pc) == byte(compile.CJMP) {
				thread.Steps++
				if r {
					pc = jumpTarget(codep, pc+1)
				} else {
					pc += 5
				}
				break
			}
			stack[sp] = Bool(r)
			sp++

		case compile.PLUS,
			compile.MINUS,
			compile.STAR,
			compile.SLASH,
			compile.SLASHSLASH,
			compile.PERCENT,
			compile.AMP,
			compile.PIPE,
			compile.CIRCUMFLEX,
			compile.LTLT,
			compile.GTGT,
			compile.IN:
			y := stack[sp-1]
			x := stack[sp-2]
			sp -= 2
			// rlm: + - * and % by a positive int of two ints in the inline
			// int32 form, in the loop (no int64 overflow possible).
			if xi, ok := x.(Int); ok {
				if yi, ok := y.(Int); ok {
					if a, b, ok := small32Pair(xi, yi); ok {
						r, done := int64(0), true
						switch op {
						case compile.PLUS:
							r = a + b
						case compile.MINUS:
							r = a - b
						case compile.STAR:
							r = a * b
						case compile.PERCENT:
							if b > 0 {
								// rlm: a 32-bit division (both are int32): a
								// 64-bit IDIV takes several times as long.
								if r = int64(int32(a) % int32(b)); r < 0 {
									r += b
								}
							} else {
								done = false
							}
						default:
							done = false
						}
						if done {
							if z, ok := smallInt(r); ok {
								stack[sp] = z
							} else {
								stack[sp] = MakeInt64(r)
							}
							sp++
							break
						}
					}
				}
			}
			// rlm: int64 and float arithmetic without Binary (int_fast.go).
			if z, ok := fastBinary(op, x, y); ok {
				stack[sp] = z
				sp++
				break
			}
			z, err2 := binarySlow(thread, op, x, y) // rlm: out of the loop
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp] = z
			sp++

		case compile.UPLUS, compile.UMINUS, compile.TILDE:
			var unop syntax.Token
			if op == compile.TILDE {
				unop = syntax.TILDE
			} else {
				unop = syntax.Token(op-compile.UPLUS) + syntax.PLUS
			}
			x := stack[sp-1]
			y, err2 := Unary(unop, x)
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp-1] = y

		case compile.INPLACE_ADD:
			y := stack[sp-1]
			x := stack[sp-2]
			sp -= 2
			// rlm: int64 and float += without Binary (int_fast.go).
			if z, ok := fastBinary(compile.PLUS, x, y); ok {
				stack[sp] = z
				sp++
				break
			}
			z, err2 := inplaceAdd(thread, x, y) // rlm: out of the loop
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp] = z
			sp++

		case compile.INPLACE_PIPE:
			y := stack[sp-1]
			x := stack[sp-2]
			sp -= 2
			z, err2 := inplacePipe(x, y) // rlm: out of the loop
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp] = z
			sp++

		case compile.NONE:
			stack[sp] = None
			sp++

		case compile.TRUE:
			stack[sp] = True
			sp++

		case compile.FALSE:
			stack[sp] = False
			sp++

		case compile.MANDATORY:
			stack[sp] = mandatory{}
			sp++

		case compile.JMP:
			pc = arg

		case compile.CALL, compile.CALL_VAR, compile.CALL_KW, compile.CALL_VAR_KW:
			// rlm: the call of a method left unbound by its ATTR.
			var m *Builtin
			if fr.method != nil && fr.methodCallPC == fr.pc {
				m, fr.method = fr.method, nil
			}
			// rlm: a method's fast path (rlm_fastmethod.go).
			if m != nil && m.fastMethod != nil && op == compile.CALL && arg&0xff == 0 {
				npos := int(arg >> 8)
				if z, ok := m.fastMethod(m, stack[sp-1-npos], stack[sp-npos:sp]); ok {
					sp -= npos
					stack[sp-1] = z
					break
				}
			}
			if op == compile.CALL && arg&0xff == 0 && m == nil {
				npos := int(arg >> 8)
				callee := stack[sp-1-npos]
				// rlm: a Starlark function is called without Call
				// (callFast, rlm_calls.go).
				if g, ok := callee.(*Function); ok && profiler.events == nil {
					z, err2 := g.callFast(thread, stack[sp-npos:sp])
					if err2 != nil {
						err = err2
						break loop
					}
					sp -= npos
					stack[sp-1] = z
					break
				}
				// rlm: a call with positional arguments only of a callable
				// with a fast path (FastCallable, rlm_calls.go).
				if fc, ok := callee.(FastCallable); ok {
					if z, ok := fc.FastCall(thread, stack[sp-npos:sp]); ok {
						sp -= npos
						stack[sp-1] = z
						break
					}
				}
			}
			// rlm: every other call, out of the loop (callSlow).
			var err2 error
			if sp, err2 = callSlow(thread, stack, sp, op, arg, m); err2 != nil {
				err = err2
				break loop
			}

		case compile.ITERPUSH:
			iter, err2 := iterPush(thread, stack[sp-1]) // rlm: out of the loop
			sp--
			if err2 != nil {
				err = err2
				break loop
			}
			iterstack = append(iterstack, iter)

		case compile.ITERJMP:
			iter := iterstack[len(iterstack)-1]
			// rlm: a range loop steps its iterator inline (a concrete
			// type test instead of the PairIterator assertion and the
			// Next call).
			if ri, ok := iter.(*rangeIterator); ok {
				if ri.i < ri.r.len {
					z, ok := smallInt(int64(ri.r.start + ri.i*ri.r.step))
					if !ok {
						z = MakeInt(ri.r.start + ri.i*ri.r.step)
					}
					ri.i++
					// rlm: the loop variable's SETLOCAL/SETGLOBAL
					// right after it is done here (it counts its step),
					// storing the element there, not on the stack.
					if c := codeAt(codep, pc); (c == byte(compile.SETLOCAL) || c == byte(compile.SETGLOBAL)) && codeAt(codep, pc+1) < 0x80 {
						storeLoopVar(fn, locals, c, codeAt(codep, pc+1), z)
						pc += 2
						thread.Steps++
						break
					}
					stack[sp] = z
					sp++
				} else {
					pc = arg
				}
				break
			}
			// rlm: a list loop steps its live iterator inline, as range.
			if li, ok := iter.(*liveListIterator); ok {
				if li.i < len(li.l.elems) {
					z := li.l.elems[li.i]
					li.i++
					if c := codeAt(codep, pc); (c == byte(compile.SETLOCAL) || c == byte(compile.SETGLOBAL)) && codeAt(codep, pc+1) < 0x80 {
						storeLoopVar(fn, locals, c, codeAt(codep, pc+1), z)
						pc += 2
						thread.Steps++
						break
					}
					stack[sp] = z
					sp++
				} else {
					pc = arg
				}
				break
			}
			// rlm: `for a, b in pairs` takes both elements from a
			// PairIterator without building the tuple (rlm_pyops.go).
			if pi, ok := iter.(PairIterator); ok {
				if next, skipped := pairUnpack(f.Code, pc); next > 0 {
					if pi.NextPair(&stack[sp+1], &stack[sp]) {
						sp += 2
						pc = next               // past the UNPACK 2 it did
						thread.Steps += skipped // whose steps still count
					} else {
						pc = arg
					}
					break
				}
			}
			if iter.Next(&stack[sp]) {
				sp++
				// rlm: as for range, the loop variable's store.
				if c := codeAt(codep, pc); (c == byte(compile.SETLOCAL) || c == byte(compile.SETGLOBAL)) && codeAt(codep, pc+1) < 0x80 {
					sp--
					storeLoopVar(fn, locals, c, codeAt(codep, pc+1), stack[sp])
					pc += 2
					thread.Steps++
				}
			} else {
				pc = arg
			}

		case compile.ITERPOP:
			n := len(iterstack) - 1
			iterstack[n].Done()
			if ti, ok := iterstack[n].(*tupleIterator); ok && ti.loop {
				// rlm: reused by the next loop over a tuple
				// (iterPush); only the iterator stack held it.
				ti.elems = nil
				thread.tupleIter = ti
			}
			iterstack = iterstack[:n]

		case compile.NOT:
			stack[sp-1] = !stack[sp-1].Truth()

		case compile.RETURN:
			result = stack[sp-1]
			break loop

		case compile.SETINDEX:
			z := stack[sp-1]
			y := stack[sp-2]
			x := stack[sp-3]
			sp -= 3
			if d, ok := x.(*Dict); ok { // rlm: bounded growth, if y is new
				if err2 := checkGrowInsert(thread, &d.ht, y, true); err2 != nil {
					err = err2
					break loop
				}
			}
			if err2 := setIndex(x, y, z); err2 != nil {
				err = err2
				break loop
			}

		case compile.INDEX:
			y := stack[sp-1]
			x := stack[sp-2]
			sp -= 2
			var z Value
			var err2 error
			if py := PyOps; py != nil {
				z, err2 = py.Index(thread, x, y) // rlm: Python subscripts
			} else {
				z, err2 = getIndex(x, y)
			}
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp] = z
			sp++

		case compile.INDEXK:
			// rlm: CONSTANT k and INDEX fused (compile/fuse.go): x[k],
			// counting the CONSTANT's step.
			thread.Steps++
			z, err2 := indexOp(thread, stack[sp-1], fn.module.constants[arg])
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp-1] = z

		case compile.ATTR:
			x := stack[sp-1]
			// rlm: x.name(...) of a method of a built-in value binds no
			// method: x stays on the stack for the CALL (rlm_calls.go).
			if site := methodSiteAt(f, pc); site != nil {
				if m := site.method(x); m != nil {
					fr.method, fr.methodCallPC = m, site.callPC
					break
				}
			}
			y, err2 := getAttr(x, f.Prog.Names[arg])
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp-1] = y

		case compile.SETFIELD:
			y := stack[sp-1]
			x := stack[sp-2]
			sp -= 2
			name := f.Prog.Names[arg]
			if err2 := setField(x, name, y); err2 != nil {
				err = err2
				break loop
			}

		case compile.MAKEDICT:
			stack[sp] = new(Dict)
			sp++

		case compile.MAKEDICTN:
			stack[sp] = newDictOf(int(arg))
			sp++

		case compile.MAKEDICTKV:
			// rlm: a literal's constant keys and its values (compile.go:
			// constantKeys), inserted in order (a repeated key's later
			// value wins, as SETDICTUNIQ's); the DUP and SETDICTUNIQ
			// of each entry count their steps. The dict is sized for
			// the entries: no insertion grows it or is due a grow check.
			var err2 error
			if sp, err2 = makeDictKV(thread, stack, sp, int(arg)); err2 != nil { // rlm: out of the loop
				err = err2
				break loop
			}

		case compile.SIZEHINT:
			// rlm: [body for vars in x]: the empty list gets room for
			// len(x) elements (rlm_calls.go).
			if list, ok := stack[sp-2].(*List); ok && cap(list.elems) == 0 {
				sizeHint(thread, list, stack[sp-1])
			}

		case compile.SETDICT, compile.SETDICTUNIQ:
			dict := stack[sp-3].(*Dict)
			k := stack[sp-2]
			v := stack[sp-1]
			sp -= 3
			if op == compile.SETDICT {
				// rlm: a comprehension's SETDICT keeps its accumulator
				// (compile.go, comprehension) and counts the step of
				// the DUP that upstream ran before each element.
				sp++
				thread.Steps++
			}
			if err2 := checkGrowTable(thread, &dict.ht); err2 != nil { // rlm: bounded growth
				err = err2
				break loop
			}
			// rlm: a duplicate key of a dict literal replaces the value, as
			// in Python ({1: 2, 1: 3} is {1: 3}); upstream failed.
			if err2 := dict.SetKey(k, v); err2 != nil {
				err = err2
				break loop
			}

		case compile.APPEND:
			// rlm: APPEND keeps its accumulator (compile.go,
			// comprehension) and counts the step of the DUP that
			// upstream ran before each element.
			elem := stack[sp-1]
			sp--
			thread.Steps++
			// rlm: the common case in the loop: a list with room, not
			// at a grow check (checkGrowLen: every GrowCheckEvery).
			if list, ok := stack[sp-1].(*List); ok && len(list.elems) < cap(list.elems) && (len(list.elems)+1)%GrowCheckEvery != 0 {
				list.elems = append(list.elems, elem)
				// rlm: a comprehension's jump back to its loop is
				// taken here (it counts its step).
				if codeAt(codep, pc) == byte(compile.JMP) {
					pc = jumpTarget(codep, pc+1)
					thread.Steps++
				}
				break
			}
			if err2 := appendSlow(thread, stack[sp-1], elem); err2 != nil { // rlm: out of the loop
				err = err2
				break loop
			}

		case compile.SLICE:
			x := stack[sp-4]
			lo := stack[sp-3]
			hi := stack[sp-2]
			step := stack[sp-1]
			sp -= 4
			res, err2 := sliceOp(thread, x, lo, hi, step) // rlm: out of the loop
			if err2 != nil {
				err = err2
				break loop
			}
			stack[sp] = res
			sp++

		case compile.UNPACK:
			n := int(arg)
			iterable := stack[sp-1]
			sp--
			// rlm: a tuple of the right length (enumerate, dict.items,
			// zip) is unpacked without an iterator.
			if t, ok := iterable.(Tuple); ok && len(t) == n {
				for i, v := range t {
					stack[sp+n-1-i] = v
				}
				sp += n
				break
			}
			sp += n
			if err2 := unpackSlow(thread, stack[sp-n:sp], iterable); err2 != nil { // rlm: out of the loop
				err = err2
				break loop
			}

		case compile.CJMP:
			if stack[sp-1].Truth() {
				pc = arg
			}
			sp--

		case compile.CONSTANT:
			stack[sp] = fn.module.constants[arg]
			sp++

		case compile.MAKETUPLE:
			n := int(arg)
			sp -= n
			// rlm: one allocation for a short tuple (rlm_tuple.go).
			stack[sp] = newTupleValue(stack[sp : sp+n])
			sp++

		case compile.MAKELIST:
			n := int(arg)
			elems := make([]Value, n)
			sp -= n
			copy(elems, stack[sp:])
			stack[sp] = NewList(elems)
			sp++

		case compile.MAKEFUNC:
			stack[sp-1] = makeFunc(fn.module, f.Prog.Functions[arg], stack[sp-1].(Tuple)) // rlm: out of the loop

		case compile.LOAD:
			var err2 error
			if sp, err2 = loadOp(thread, stack, sp, int(arg)); err2 != nil { // rlm: out of the loop
				err = err2
				break loop
			}

		case compile.SETLOCAL:
			locals[arg] = stack[sp-1]
			sp--

		case compile.SETLOCALCELL:
			locals[arg].(*cell).v = stack[sp-1]
			sp--

		case compile.SETGLOBAL:
			fn.module.globals[arg] = stack[sp-1]
			sp--

		case compile.LOCAL:
			x := locals[arg]
			if x == nil {
				err = fmt.Errorf("local variable %s referenced before assignment", f.Locals[arg].Name)
				break loop
			}
			stack[sp] = x
			sp++

		case compile.FREE:
			stack[sp] = fn.freevars[arg]
			sp++

		case compile.LOCALCELL:
			v := locals[arg].(*cell).v
			if v == nil {
				err = fmt.Errorf("local variable %s referenced before assignment", f.Locals[arg].Name)
				break loop
			}
			stack[sp] = v
			sp++

		case compile.FREECELL:
			v := fn.freevars[arg].(*cell).v
			if v == nil {
				err = fmt.Errorf("local variable %s referenced before assignment", f.FreeVars[arg].Name)
				break loop
			}
			stack[sp] = v
			sp++

		case compile.GLOBAL:
			x := fn.module.globals[arg]
			if x == nil {
				err = fmt.Errorf("global variable %s referenced before assignment", f.Prog.Globals[arg].Name)
				break loop
			}
			stack[sp] = x
			sp++

		case compile.GLOBALLOCAL, compile.GLOBALGLOBAL:
			// rlm: GLOBAL g and LOCAL l, or GLOBAL g2, fused
			// (compile/fuse.go): both pushed, each with its error and
			// step.
			g, l := compile.FusedGlobalLocal(arg)
			x := fn.module.globals[g]
			if x == nil {
				err = fmt.Errorf("global variable %s referenced before assignment", f.Prog.Globals[g].Name)
				break loop
			}
			thread.Steps++ // the second's
			var y Value
			if op == compile.GLOBALLOCAL {
				if y = locals[l]; y == nil {
					err = fmt.Errorf("local variable %s referenced before assignment", f.Locals[l].Name)
					break loop
				}
			} else if y = fn.module.globals[l]; y == nil {
				err = fmt.Errorf("global variable %s referenced before assignment", f.Prog.Globals[l].Name)
				break loop
			}
			stack[sp] = x
			stack[sp+1] = y
			sp += 2
			// rlm: a CALL of one positional argument right after it
			// (f(x)) is taken here, at its own pc (its position, the
			// caller's in a traceback); it counts its step.
			if codeAt(codep, pc) == byte(compile.CALL) && codeAt(codep, pc+1) == 0x80 && codeAt(codep, pc+2) == 0x02 {
				fr.pc = pc
				pc += 3
				op = compile.CALL
				arg = 1 << 8
				thread.Steps++
				goto dispatch
			}

		case compile.PREDECLARED:
			name := f.Prog.Names[arg]
			x := fn.module.predeclared[name]
			if x == nil {
				err = fmt.Errorf("internal error: predeclared variable %s is uninitialized", name)
				break loop
			}
			stack[sp] = x
			sp++

		case compile.UNIVERSAL:
			stack[sp] = Universe[f.Prog.Names[arg]]
			sp++

		default:
			err = fmt.Errorf("unimplemented: %s", op)
			break loop
		}
	}
	// rlm: Call's error wrapping, with the frame still pushed (callFast).
	if err != nil && pushed && needsEvalError(err) {
		err = thread.evalError(err)
	}
	// (deferred cleanup runs here)
	return result, err
}

// callSlow runs a CALL instruction (op, arg) other than the interpreter
// loop's fast paths, with the callee and its arguments on stack below sp,
// and returns the new sp, the result at stack[sp-1]. m is the method left
// unbound by the call's ATTR (nil: none). rlm: moved out of the loop of
// Function.run, which keeps its fast paths only (see PATCHES.md).
func callSlow(thread *Thread, stack []Value, sp int, op compile.Opcode, arg uint32, m *Builtin) (int, error) {
	// rlm: _py_method(recv, "name", *args) with positional arguments
	// only goes straight to the Method hook (no argument decoding, no
	// profiler spans: the profiler is off).
	if op == compile.CALL && arg&0xff == 0 && m == nil && profiler.events == nil {
		npos := int(arg >> 8)
		if b, ok := stack[sp-1-npos].(*Builtin); ok && b.name == "_py_method" {
			z, handled, err := pyMethodCall(thread, b, stack[sp-npos:sp], nil)
			if handled {
				sp -= npos
				if err != nil {
					return sp, err
				}
				stack[sp-1] = z
				return sp, nil
			}
		}
	}

	var kwargs Value
	if op == compile.CALL_KW || op == compile.CALL_VAR_KW {
		kwargs = stack[sp-1]
		sp--
	}

	var args Value
	if op == compile.CALL_VAR || op == compile.CALL_VAR_KW {
		args = stack[sp-1]
		sp--
	}

	// named args (pairs)
	var kvpairs []Tuple
	if nkvpairs := int(arg & 0xff); nkvpairs > 0 {
		kvpairs = make([]Tuple, 0, nkvpairs)
		kvpairsAlloc := make(Tuple, 2*nkvpairs) // allocate a single backing array
		sp -= 2 * nkvpairs
		for i := range nkvpairs {
			pair := kvpairsAlloc[:2:2]
			kvpairsAlloc = kvpairsAlloc[2:]
			pair[0] = stack[sp+2*i]   // name
			pair[1] = stack[sp+2*i+1] // value
			kvpairs = append(kvpairs, pair)
		}
	}
	if kwargs != nil {
		// Add key/value items from **kwargs dictionary.
		dict, ok := kwargs.(IterableMapping)
		if !ok {
			return sp, fmt.Errorf("argument after ** must be a mapping, not %s", kwargs.Type())
		}
		items := dict.Items()
		for _, item := range items {
			if !is[String](item[0]) {
				return sp, fmt.Errorf("keywords must be strings, not %s", item[0].Type())
			}
		}
		if len(kvpairs) == 0 {
			kvpairs = items
		} else {
			kvpairs = append(kvpairs, items...)
		}
	}

	// positional args
	var positional Tuple
	if npos := int(arg >> 8); npos > 0 {
		positional = stack[sp-npos : sp]
		sp -= npos

		// Copy positional arguments into a new array,
		// unless the callee is another Starlark function,
		// in which case it can be trusted not to mutate them.
		// rlm: nor the methods of built-in values (m), which
		// keep no argument tuple.
		if m == nil && !is[*Function](stack[sp-1]) || args != nil {
			// rlm: no copy for callables that do not keep their
			// argument tuple (rlm_calls.go).
			if args != nil || !argsNotKept(stack[sp-1]) {
				positional = slices.Clone(positional)
			}
		}
	}
	if args != nil {
		// Add elements from *args sequence.
		iter := Iterate(args)
		if iter == nil {
			return sp, fmt.Errorf("argument after * must be iterable, not %s", args.Type())
		}
		var elem Value
		for iter.Next(&elem) {
			positional = append(positional, elem)
		}
		iter.Done()
	}

	function := stack[sp-1]

	thread.endProfSpan()
	var z Value
	var err2 error
	if m != nil {
		// rlm: function is the receiver of method m (ATTR).
		z, err2 = thread.callNativeMethod(m, function, positional, kvpairs)
	} else {
		// rlm: a method of a built-in value runs without a frame (rlm_pyops.go).
		var handled bool
		z, handled, err2 = pyMethodCall(thread, function, positional, kvpairs)
		if !handled {
			z, err2 = Call(thread, function, positional, kvpairs)
		}
	}
	thread.beginProfSpan()
	if err2 != nil {
		return sp, err2
	}
	stack[sp-1] = z
	return sp, nil
}

// codeAt returns the byte at pc of the code at codep (rlm: no bounds
// check; see Function.run).
func codeAt(codep unsafe.Pointer, pc uint32) byte { return *(*byte)(unsafe.Add(codep, pc)) }

// jumpTarget decodes the operand of the jump instruction whose operand
// starts at pc in the code at codep (rlm: for instructions taken by the
// one before).
func jumpTarget(codep unsafe.Pointer, pc uint32) uint32 {
	var arg uint32
	for s := uint(0); ; s += 7 {
		b := codeAt(codep, pc)
		pc++
		arg |= uint32(b&0x7f) << s
		if b < 0x80 {
			return arg
		}
	}
}

// storeLoopVar does the SETLOCAL or SETGLOBAL (op) of v to index i that
// follows an ITERJMP (rlm).
func storeLoopVar(fn *Function, locals []Value, op, i byte, v Value) {
	if op == byte(compile.SETLOCAL) {
		locals[i] = v
	} else {
		fn.module.globals[i] = v
	}
}

// makeDictKV replaces the n keys and values alternating at the top of
// stack (below sp) with a dict of them, sized for them, and returns the
// new sp (MAKEDICTKV; it counts the steps of a DUP and a SETDICTUNIQ per
// entry).
// rlm: a literal of up to 4 entries is copied from the template of its
// site (rlm_dictkv.go), when there is one: the instruction at the pc of
// the thread's top frame (the frame of the Function.run calling it, taken
// from the thread, not passed, since another argument moved the loop's
// register allocation: 2% more instructions in a list comprehension).
func makeDictKV(thread *Thread, stack []Value, sp, n int) (int, error) {
	sp -= 2 * n
	kv := stack[sp : sp+2*n]
	var site *dictKVSite
	var f *compile.Funcode
	var pc uint32
	if fr := thread.frameAt(0); n <= len(smallDict{}.ents) {
		if fn, ok := fr.callable.(*Function); ok {
			f, pc = fn.funcode, fr.pc
			if site = dictKVSiteAt(f, pc); site != nil {
				if d := site.make(kv); d != nil {
					stack[sp] = d
					thread.Steps += uint64(2 * n)
					return sp + 1, nil
				}
			}
		}
	}
	d := newDictOf(n)
	for i := 0; i < len(kv); i += 2 {
		if err := d.SetKey(kv[i], kv[i+1]); err != nil {
			return 0, err
		}
	}
	if f != nil && site == nil {
		addDictKVSite(f, pc, d, kv)
	}
	stack[sp] = d
	thread.Steps += uint64(2 * n)
	return sp + 1, nil
}

// indexOp returns x[y] (INDEXK; rlm: out of the loop of Function.run).
func indexOp(thread *Thread, x, y Value) (Value, error) {
	if py := PyOps; py != nil {
		return py.Index(thread, x, y) // rlm: Python subscripts
	}
	return getIndex(x, y)
}

// fusedCompare compares a and b, ints of the int32 range, by the
// comparison op (LT..NEQ), for a fused instruction's fast path.
func fusedCompare(op compile.Opcode, a, b int64) bool {
	switch op {
	case compile.LT:
		return a < b
	case compile.GT:
		return a > b
	case compile.GE:
		return a >= b
	case compile.LE:
		return a <= b
	case compile.EQL:
		return a == b
	}
	return a != b
}

// binarySlow computes x op y for a binary operator instruction op that
// fastBinary did not compute. rlm: out of the loop of Function.run.
func binarySlow(thread *Thread, op compile.Opcode, x, y Value) (Value, error) {
	binop := syntax.Token(op-compile.PLUS) + syntax.PLUS
	if op == compile.IN {
		binop = syntax.IN // IN token is out of order
	}
	if op == compile.PLUS { // rlm: bounded growth
		if err := checkConcat(thread, x, y); err != nil {
			return nil, err
		}
	}
	if py := PyOps; py != nil && (op == compile.PERCENT || op == compile.STAR) {
		return py.Binary(thread, binop, x, y) // rlm: Python % and *
	} else if xs, ok := x.(String); ok && op == compile.IN && py != nil && py.Contains != nil {
		if ys, ok := y.(String); ok {
			return Bool(py.Contains(string(ys), string(xs))), nil // rlm: substring search
		}
	}
	return Binary(binop, x, y)
}

// inplaceAdd computes x += y when fastBinary did not. rlm: out of the
// loop of Function.run.
func inplaceAdd(thread *Thread, x, y Value) (Value, error) {
	// It's possible that y is not Iterable but
	// nonetheless defines x+y, in which case we
	// should fall back to the general case.
	if xlist, ok := x.(*List); ok {
		if yiter, ok := y.(Iterable); ok {
			if err := xlist.checkMutable("apply += to"); err != nil {
				return nil, err
			}
			if err := listExtendChecked(thread, xlist, yiter); err != nil { // rlm: bounded growth
				return nil, err
			}
			return xlist, nil
		}
	}
	if err := checkConcat(thread, x, y); err != nil { // rlm: bounded growth
		return nil, err
	}
	return Binary(syntax.PLUS, x, y)
}

// inplacePipe computes x |= y. rlm: out of the loop of Function.run.
func inplacePipe(x, y Value) (Value, error) {
	// It's possible that y is not Dict but
	// nonetheless defines x|y, in which case we
	// should fall back to the general case.
	if xdict, ok := x.(*Dict); ok {
		if ydict, ok := y.(*Dict); ok {
			if err := xdict.ht.checkMutable("apply |= to"); err != nil {
				return nil, err
			}
			xdict.ht.addAll(&ydict.ht) // can't fail
			return xdict, nil
		}
	}
	return Binary(syntax.PIPE, x, y)
}

// unpackSlow unpacks iterable into dst in reverse order (the last
// element first), as UNPACK. rlm: out of the loop of Function.run; a
// value Starlark cannot iterate is unpacked as the PyOps Iterable hook
// iterates it (a, b = "ab", as Python).
func unpackSlow(thread *Thread, dst []Value, iterable Value) error {
	n := len(dst)
	if l, ok := iterable.(*List); ok && len(l.elems) == n {
		// rlm: a list of the right length (a, b = s.split(",", 1)) is
		// unpacked without an iterator, as a tuple is (no code runs).
		for i, v := range l.elems {
			dst[n-1-i] = v
		}
		return nil
	}
	iter := Iterate(iterable)
	if iter == nil && PyOps != nil {
		if x, err := PyOps.Iterable(thread, iterable); err == nil {
			iter = Iterate(x)
		}
	}
	if iter == nil {
		return fmt.Errorf("got %s in sequence assignment", iterable.Type())
	}
	i := 0
	for i < n && iter.Next(&dst[n-1-i]) {
		i++
	}
	var dummy Value
	if iter.Next(&dummy) {
		// NB: Len may return -1 here in obscure cases.
		return fmt.Errorf("too many values to unpack (got %d, want %d)", Len(iterable), n)
	}
	iter.Done()
	if i < n {
		return fmt.Errorf("too few values to unpack (got %d, want %d)", i, n)
	}
	return nil
}

// makeFunc returns the function of funcode in module with the defaults
// and free variables in tuple, as MAKEFUNC. rlm: out of the loop of
// Function.run.
func makeFunc(module *Module, funcode *compile.Funcode, tuple Tuple) *Function {
	n := len(tuple) - len(funcode.FreeVars)
	defaults := tuple[:n:n]
	freevars := tuple[n:]
	return &Function{
		funcode:  funcode,
		module:   module,
		defaults: defaults,
		freevars: freevars,
	}
}

// loadOp runs LOAD n with the module name and the n names on stack below
// sp and returns the new sp. rlm: out of the loop of Function.run.
func loadOp(thread *Thread, stack []Value, sp, n int) (int, error) {
	module := string(stack[sp-1].(String))
	sp--

	if thread.Load == nil {
		return sp, fmt.Errorf("load not implemented by this application")
	}

	thread.endProfSpan()
	dict, err2 := thread.Load(thread, module)
	thread.beginProfSpan()
	if err2 != nil {
		return sp, wrappedError{
			msg:   fmt.Sprintf("cannot load %s: %v", module, err2),
			cause: err2,
		}
	}

	for i := range n {
		from := string(stack[sp-1-i].(String))
		v, ok := dict[from]
		if !ok {
			err := fmt.Errorf("load: name %s not found in module %s", from, module)
			if n := spell.Nearest(from, dict.Keys()); n != "" {
				err = fmt.Errorf("%s (did you mean %s?)", err, n)
			}
			return sp, err
		}
		stack[sp-1-i] = v
	}
	return sp, nil
}

// sliceOp computes x[lo:hi:step], as SLICE. rlm: out of the loop of
// Function.run.
func sliceOp(thread *Thread, x, lo, hi, step Value) (Value, error) {
	if py := PyOps; py != nil {
		return py.Slice(thread, x, lo, hi, step) // rlm: Python slices
	}
	return slice(x, lo, hi, step)
}

// iterPush returns the iterator of x, as ITERPUSH. rlm: out of the loop
// of Function.run.
func iterPush(thread *Thread, x Value) (Iterator, error) {
	if py := PyOps; py != nil { // rlm: Python iteration
		var err error
		if x, err = py.Iterable(thread, x); err != nil {
			return nil, err
		}
	}
	if t, ok := x.(Tuple); ok {
		// rlm: the iterator of a loop over a tuple that ended (ITERPOP),
		// not a new one: `for k in ("a", "b")` inside a loop allocates
		// nothing. Only iterators made here (loop) are reused: one that
		// a value hands out from its Iterate may be held elsewhere.
		it := thread.tupleIter
		if it == nil {
			return &tupleIterator{elems: t, loop: true}, nil
		}
		thread.tupleIter = nil
		it.elems = t
		return it, nil
	}
	iter := Iterate(x)
	if iter == nil {
		return nil, fmt.Errorf("%s value is not iterable", x.Type())
	}
	return iter, nil
}

// appendSlow appends elem to the comprehension's accumulator acc, as
// APPEND. rlm: out of the loop of Function.run.
func appendSlow(thread *Thread, acc Value, elem Value) error {
	list, ok := acc.(*List)
	if !ok {
		// rlm: a comprehension's accumulator that consumes
		// its elements (syntax.Comprehension.Acc).
		acc, ok := acc.(Appender)
		if !ok {
			return fmt.Errorf("internal error: comprehension accumulator %s cannot append", acc.Type())
		}
		return acc.Append(thread, elem)
	}
	if n := len(list.elems); n == cap(list.elems) && n >= 1024 {
		// rlm: grow a comprehension's list by doubling, not by
		// append's 1.25x for large slices (fewer copies); the
		// doubled size is checked first (bounded growth).
		if err := checkGrowListTo(thread, 2*n); err != nil {
			return err
		}
		list.elems = append(make([]Value, 0, 2*n), list.elems...)
	} else if err := checkGrowList(thread, list); err != nil { // rlm: bounded growth
		return err
	}
	list.elems = append(list.elems, elem)
	return nil
}

type wrappedError struct {
	msg   string
	cause error
}

func (e wrappedError) Error() string {
	return e.msg
}

// Implements the xerrors.Wrapper interface
// https://godoc.org/golang.org/x/xerrors#Wrapper
func (e wrappedError) Unwrap() error {
	return e.cause
}

// mandatory is a sentinel value used in a function's defaults tuple
// to indicate that a (keyword-only) parameter is mandatory.
type mandatory struct{}

func (mandatory) String() string        { return "mandatory" }
func (mandatory) Type() string          { return "mandatory" }
func (mandatory) Freeze()               {} // immutable
func (mandatory) Truth() Bool           { return False }
func (mandatory) Hash() (uint32, error) { return 0, nil }

// A cell is a box containing a Value.
// Local variables marked as cells hold their value indirectly
// so that they may be shared by outer and inner nested functions.
// Cells are always accessed using indirect {FREE,LOCAL,SETLOCAL}CELL instructions.
// The FreeVars tuple contains only cells.
// The FREE instruction always yields a cell.
type cell struct{ v Value }

func (c *cell) String() string { return "cell" }
func (c *cell) Type() string   { return "cell" }
func (c *cell) Freeze() {
	if c.v != nil {
		c.v.Freeze()
	}
}
func (c *cell) Truth() Bool           { panic("unreachable") }
func (c *cell) Hash() (uint32, error) { panic("unreachable") }
