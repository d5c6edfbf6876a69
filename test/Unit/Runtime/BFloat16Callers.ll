; Callers of the runtime's bf16 conversions exactly as LLVM compiles them for
; pw-compile's host code: `fptrunc ... to bfloat` becomes a call of
; __truncsfbf2 / __truncdfbf2 with the argument in xmm0 and the bf16 result
; read from the low 16 bits of xmm0. BFloat16Test calls these, so it tests the
; ABI along with the values. Built with llc by CMakeLists.txt.

define i16 @pwTestTruncFloatToBFloat16(float %value) {
  %rounded = fptrunc float %value to bfloat
  %bits = bitcast bfloat %rounded to i16
  ret i16 %bits
}

define i16 @pwTestTruncDoubleToBFloat16(double %value) {
  %rounded = fptrunc double %value to bfloat
  %bits = bitcast bfloat %rounded to i16
  ret i16 %bits
}
