// c = a + b * alpha, where `a` is any strided 2-D view, `b` a row vector
// broadcast over the rows of `a`, and `alpha` a scalar.
func.func @axpy(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                %b: memref<?xf32>, %alpha: f32, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?], offset: ?>>,
                                     memref<?xf32>, f32)
                outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  }
  return
}
