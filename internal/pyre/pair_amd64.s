#include "textflag.h"

// func pairBlocks(p1, p2 *byte, blocks int, c1, c2 byte) (block int, mask uint32)
TEXT ·pairBlocks(SB), NOSPLIT, $0-44
	MOVQ p1+0(FP), SI
	MOVQ p2+8(FP), DI
	MOVQ blocks+16(FP), CX
	// X0 = c1 in every byte, X1 = c2 in every byte.
	MOVBLZX c1+24(FP), AX
	MOVQ AX, X0
	PUNPCKLBW X0, X0
	PSHUFLW $0, X0, X0
	PUNPCKLQDQ X0, X0
	MOVBLZX c2+25(FP), AX
	MOVQ AX, X1
	PUNPCKLBW X1, X1
	PSHUFLW $0, X1, X1
	PUNPCKLQDQ X1, X1
	XORQ DX, DX

loop:
	CMPQ DX, CX
	JAE none
	MOVOU (SI), X2
	MOVOU 16(SI), X3
	MOVOU (DI), X4
	MOVOU 16(DI), X5
	PCMPEQB X0, X2
	PCMPEQB X0, X3
	PCMPEQB X1, X4
	PCMPEQB X1, X5
	PAND X4, X2
	PAND X5, X3
	MOVOU X2, X6
	POR X3, X6
	PMOVMSKB X6, AX
	TESTL AX, AX
	JNZ found
	ADDQ $32, SI
	ADDQ $32, DI
	INCQ DX
	JMP loop

found:
	PMOVMSKB X2, AX
	PMOVMSKB X3, BX
	SHLL $16, BX
	ORL BX, AX
	MOVQ DX, block+32(FP)
	MOVL AX, mask+40(FP)
	RET

none:
	MOVQ CX, block+32(FP)
	MOVL $0, mask+40(FP)
	RET
