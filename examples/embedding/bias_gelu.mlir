// y = gelu(x + bias): `bias` is added to every row of `x`, then GELU (its
// tanh approximation) is applied to each element. Elementwise linalg ops on
// tensors, as a front end emits them.
func.func @bias_gelu(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<?x?xf32>, tensor<?xf32>)
      outs(%empty : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %y = linalg.map ins(%sum : tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>)
      (%v: f32, %out: f32) {
        %half = arith.constant 0.5 : f32
        %one = arith.constant 1.0 : f32
        %k = arith.constant 0.7978845608 : f32
        %c = arith.constant 0.044715 : f32
        %v2 = arith.mulf %v, %v : f32
        %v3 = arith.mulf %v2, %v : f32
        %inner = arith.mulf %c, %v3 : f32
        %t0 = arith.addf %v, %inner : f32
        %t1 = arith.mulf %k, %t0 : f32
        %t = math.tanh %t1 : f32
        %onep = arith.addf %one, %t : f32
        %hv = arith.mulf %half, %v : f32
        %g = arith.mulf %hv, %onep : f32
        linalg.yield %g : f32
      }
  return %y : tensor<?x?xf32>
}
