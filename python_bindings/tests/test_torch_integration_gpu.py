"""@pw.pointwise inside PyTorch's machinery on the GPU: as a torch.library
custom operator (checked by torch.library.opcheck, traced by torch.compile
without graph breaks), under CUDA graph capture, and on a side stream.
Skipped without torch or a CUDA device."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
pw = pytest.importorskip("pointwise")


pytestmark = pytest.mark.usefixtures("quiet_shared_cache")


@pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
              promotion_methods=[(0, 1, "DEFAULT")])
def axpy(x, y, alpha):
    return x * alpha + y


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT"), (0, 1, "ALWAYS_BOOL")])
def add_and_less(x, y):
    return x + y, x < y


_AXPY = axpy.as_torch_op("pwtest::axpy")
_ADD_AND_LESS = add_and_less.as_torch_op("pwtest::add_and_less")


def _inputs(*shapes, dtype=torch.float32):
    g = torch.Generator(device="cuda").manual_seed(5)
    return [torch.randn(s, device="cuda", dtype=dtype, generator=g)
            for s in shapes]


def test_operator_computes_the_function():
    x, y = _inputs((4, 33), (33,))
    torch.testing.assert_close(_AXPY(x, y, 0.5), x * 0.5 + y, rtol=0, atol=0)
    s, less = _ADD_AND_LESS(x, y)
    torch.testing.assert_close(s, x + y, rtol=0, atol=0)
    assert less.dtype == torch.bool and torch.equal(less, x < y)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16,
                                   torch.int32, torch.uint8])
def test_opcheck(dtype):
    x = (torch.arange(60, device="cuda") % 7).to(dtype).reshape(3, 20)
    y = (torch.arange(20, device="cuda") % 5).to(dtype)
    torch.library.opcheck(_ADD_AND_LESS, (x, y))
    if dtype.is_floating_point:
        torch.library.opcheck(_AXPY, (x, y, 2.0))


def test_fake_outputs_follow_the_promotion():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(2, 1, 5, dtype=torch.int32, device="cuda")
        y = torch.empty(3, 1, dtype=torch.float16, device="cuda")
        s, less = _ADD_AND_LESS(x, y)
        z = _AXPY(torch.empty((), dtype=torch.float64, device="cuda"),
                  torch.empty(4, dtype=torch.bfloat16, device="cuda"), 1.0)
    assert s.shape == (2, 3, 5) and s.dtype == torch.float16
    assert less.shape == (2, 3, 5) and less.dtype == torch.bool
    # A zero-dim tensor promotes below tensors with dims, as in torch.
    assert z.shape == (4,) and z.dtype == torch.bfloat16


def test_compiles_into_one_graph():
    x, y = _inputs((8, 128), (128,))

    def program(x, y):
        return torch.relu(_AXPY(x, y, 3.0)) * 2

    compiled = torch.compile(program, fullgraph=True)
    torch.testing.assert_close(compiled(x, y), program(x, y), rtol=0, atol=0)
    explanation = torch._dynamo.explain(program)(x, y)
    assert explanation.graph_break_count == 0


def test_cuda_graph_capture_replays_the_kernel():
    x, y = _inputs((1000,), (1000,))
    # Compile and load outside the capture, on the stream capture uses.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            axpy(x, y, 2.0)
            _AXPY(x, y, 2.0)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        direct = axpy(x, y, 2.0)
        through_operator = _AXPY(x, y, 2.0)
    x.copy_(torch.arange(1000, device="cuda", dtype=torch.float32))
    graph.replay()
    torch.cuda.synchronize()
    expected = x * 2.0 + y
    torch.testing.assert_close(direct, expected, rtol=0, atol=0)
    torch.testing.assert_close(through_operator, expected, rtol=0, atol=0)


def test_side_stream_orders_after_its_inputs():
    x, y = _inputs((1 << 20,), (1 << 20,))
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        side.wait_stream(torch.cuda.default_stream())
        out = _AXPY(x, y, -1.0)
    torch.cuda.current_stream().wait_stream(side)
    torch.testing.assert_close(out, y - x, rtol=0, atol=0)


def test_bad_names_and_functions_are_errors():
    with pytest.raises(ValueError, match="namespace::name"):
        axpy.as_torch_op("no_namespace")

    @pw.pointwise(is_tensor=[False], promotion_methods=[(0, "DEFAULT")])
    def constant(s):
        return s

    with pytest.raises(ValueError, match="needs a tensor input"):
        constant.as_torch_op("pwtest::constant")
