//===- PointwiseEnums.td - Enumerations of the passes ----*- tablegen -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The choices that pass and pipeline options, and the discardable
// attributes that override them, take by name. Each case's string is the
// name that options and attributes spell; the C++ enums, their
// stringify/symbolize functions and the options' accepted values
// (enumOptionValues) all come from here.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEENUMS_TD
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEENUMS_TD

include "mlir/IR/EnumAttr.td"

def Pointwise_TileStrategy : I32EnumAttr<"TileStrategy",
    "How pw-tile maps a map's iteration space to blocks and threads", [
  I32EnumAttrCase<"Auto", 0, "auto">,
  I32EnumAttrCase<"Linear", 1, "linear">,
  I32EnumAttrCase<"Transpose", 2, "transpose">,
  I32EnumAttrCase<"General", 3, "general">
]> {
  let cppNamespace = "::pointwise";
  let genSpecializedAttr = 0;
}

def Pointwise_LoadPolicy : I32EnumAttr<"LoadPolicy",
    "The cache policy pw-hint-global-loads gives the kernels' global loads", [
  I32EnumAttrCase<"EvictLast", 0, "evict-last">,
  I32EnumAttrCase<"L1EvictLast", 1, "l1-evict-last">,
  I32EnumAttrCase<"L2EvictLast", 2, "l2-evict-last">,
  I32EnumAttrCase<"None", 3, "none">
]> {
  let cppNamespace = "::pointwise";
  let genSpecializedAttr = 0;
}

def Pointwise_BinaryFormat : I32EnumAttr<"BinaryFormat",
    "What the GPU binary of a module holds", [
  I32EnumAttrCase<"Isa", 0, "isa">,
  I32EnumAttrCase<"Bin", 1, "bin">,
  I32EnumAttrCase<"Fatbin", 2, "fatbin">
]> {
  let cppNamespace = "::pointwise";
  let genSpecializedAttr = 0;
}

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEENUMS_TD
