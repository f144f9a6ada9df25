"""One onnxruntime session per model file, on the device the caller asked for and really got.

onnxruntime-gpu accepts ``CUDAExecutionProvider`` even where CUDA cannot start and then runs on
the CPU after logging an error; the session's own provider list is the truth, so every session
is checked against it and says which device it runs on.
"""
from __future__ import annotations

import ctypes
import os
import warnings
import weakref
from pathlib import Path
from collections.abc import Iterable, Mapping

import numpy as np

from .._parallel import pool_threads, resolve_n_jobs
from ..errors import QascoreError

DEVICES = ("auto", "cpu", "cuda")
_CUDA = "CUDAExecutionProvider"
_CPU = "CPUExecutionProvider"
_NUMPY_OF_ONNX = {
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(bool)": np.bool_,
}


class ModelFileError(QascoreError, FileNotFoundError):
    """A model or tokenizer file is missing or is not a loadable model."""


class ModelInputError(QascoreError, ValueError):
    """A model's declared inputs or outputs are not the ones the caller feeds or reads."""


class DeviceUnavailableError(QascoreError, RuntimeError):
    """CUDA was asked for but onnxruntime cannot run the model on it."""


class ForkedSessionError(QascoreError, RuntimeError):
    """A CUDA session was used in a child forked after it was opened (CUDA does not survive fork)."""


# What an opened session derives from its InferenceSession (not picklable; rebuilt by _start).
_OPENED = ("_session", "_pid", "_inputs", "_outputs", "_input_dtypes")
_open_sessions: weakref.WeakSet = weakref.WeakSet()  # every OnnxSession with an InferenceSession


def _pin_inherited_sessions() -> None:
    """In a forked child, never free a session opened by the parent, not even at interpreter exit:
    its destructor waits on a condition variable that the parent's pool threads were waiting on,
    and hangs (pthread_cond_destroy with waiters that do not exist in the child)."""
    for opened in list(_open_sessions):
        for name in ("_session", "_inputs"):  # the inputs' NodeArgs hold the session too
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(getattr(opened, name, None)))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pin_inherited_sessions)


def _onnxruntime():
    try:
        import onnxruntime
    except ImportError as exc:  # pragma: no cover - depends on the extra installed
        raise ImportError(
            "qascore's transformer models need onnxruntime: pip install 'qascore[onnx]' "
            "(or 'qascore[gpu]' for CUDA; never both)"
        ) from exc
    return onnxruntime


_cuda_libraries_preloaded = False


def _preload_cuda_libraries(ort) -> None:
    """onnxruntime-gpu's CUDA provider opens cuBLAS, cuDNN and the CUDA runtime by name; the pip
    packages the ``gpu`` extra brings keep them in site-packages, off the loader's path, and
    onnxruntime >= 1.21 can load them from there first (libraries already loaded, say by torch,
    are kept). Where they are missing the session falls back to the CPU, which we detect below."""
    global _cuda_libraries_preloaded
    if not _cuda_libraries_preloaded and hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
        _cuda_libraries_preloaded = True


def _graph_for_cuda(model_path: Path, dequantize: bool, float16: bool) -> tuple[bytes | None, str]:
    """The graph a CUDA session runs (see :func:`qascore.runtime.dequantize.cuda_graph_bytes`): int8
    runs mostly on the CPU under the CUDA provider, so an int8 model becomes its float graph."""
    from .dequantize import DequantizeError, cuda_graph_bytes

    try:
        return cuda_graph_bytes(model_path, dequantize=dequantize, float16=float16)
    except (ImportError, DequantizeError) as exc:
        warnings.warn(f"{model_path}: {exc}; running the graph as stored on CUDA (an int8 graph largely falls "
                      "back to the CPU there)", RuntimeWarning, stacklevel=3)
        return None, "as-stored"


def available_devices() -> list[str]:
    """Devices this onnxruntime build offers (``cuda`` only when its provider is compiled in).

    Example:

        >>> from qascore.runtime import available_devices
        >>> available_devices()[0]
        'cpu'

    :returns: ``["cpu"]`` or ``["cpu", "cuda"]``.
    :raises ImportError: when onnxruntime is not installed (the ``onnx`` or ``gpu`` extra).
    """
    providers = _onnxruntime().get_available_providers()
    return ["cpu"] + (["cuda"] if _CUDA in providers else [])


def check_model_file(path, what: str = "model") -> Path:
    """The path as a Path, or ModelFileError naming it when it is not a readable file.

    Example:

        >>> from qascore.models import bundled_path
        >>> from qascore.runtime import check_model_file
        >>> check_model_file(bundled_path("minilm", "tokenizer.json"), "tokenizer").name
        'tokenizer.json'
        >>> check_model_file("no/such/model.onnx")
        Traceback (most recent call last):
        ...
        qascore.runtime.session.ModelFileError: model file not found: no/such/model.onnx

    :param path: a path (str or Path).
    :param what: what the file is, for the message (``model``, ``tokenizer``).
    :returns: the path as a :class:`~pathlib.Path`.
    :raises ModelFileError: when the path is not a file.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{what} file not found: {path}")
    return path


class OnnxSession:
    """An onnxruntime InferenceSession with a checked device, thread settings and checked inputs.

    ``device``: ``"cpu"``; ``"cuda"`` (an error when CUDA is unavailable or the session fell
    back to the CPU); ``"auto"`` (CUDA when it really starts, else the CPU with a warning that
    names the reason). ``n_threads``: intra-op threads on the CPU (None = all cores).
    ``input_names``: the inputs the caller will feed; the model must declare exactly these.
    ``dequantize_on_cuda``: on CUDA, run a dynamic-int8 model as the float graph of its
    dequantised weights (``graph`` says which graph runs; see :mod:`qascore.runtime.dequantize`).
    ``cuda_float16``: on CUDA, run the float graph in fp16 (about 1.9x faster on an H100; the
    shipped AVA model's logits move by up to 0.02).

    Processes: a session pickles as its settings and opens again on first use after unpickling.
    A child forked after the session was opened re-opens it on first use (the parent's intra-op
    threads do not exist there), on the CPU, on one thread when the parent had started threads
    (see :mod:`qascore._parallel`); the parent's session is never freed in the child. A CUDA
    session cannot follow a fork (CUDA does not survive one): the child's first use raises
    :class:`ForkedSessionError`, which names the start methods that work.

    Example:

        >>> import numpy as np
        >>> from qascore.runtime import OnnxSession, default_minilm_path
        >>> session = OnnxSession(default_minilm_path(), device="cpu", n_threads=1)  # about 0.3 s to load
        >>> session.device, session.input_names, session.output_names
        ('cpu', ['input_ids', 'attention_mask', 'token_type_ids'], ['last_hidden_state'])
        >>> ids = np.array([[101, 1037, 4937, 102]])  # [CLS] a cat [SEP]
        >>> (hidden,) = session.run({"input_ids": ids, "attention_mask": np.ones_like(ids),
        ...                          "token_type_ids": np.zeros_like(ids)})
        >>> hidden.shape, hidden.dtype
        ((1, 4, 384), dtype('float32'))

    :param model_path: the ONNX model file.
    :param device: ``auto``, ``cpu`` or ``cuda``.
    :param n_threads: intra-op threads on the CPU (None: all cores).
    :param input_names: the inputs the caller will feed (None: not checked).
    :param output_names: outputs the model must have (None: not checked).
    :param dequantize_on_cuda: on CUDA, run an int8 model as its dequantised float graph.
    :param cuda_float16: on CUDA, run the float graph in fp16.
    :raises ValueError: for an unknown device.
    :raises ModelFileError: for a missing or unloadable model file.
    :raises ModelInputError: for a model whose inputs or outputs are not the expected ones.
    :raises DeviceUnavailableError: for ``device="cuda"`` where CUDA cannot run the model.
    """

    def __init__(
        self,
        model_path,
        *,
        device: str = "auto",
        n_threads: int | None = None,
        input_names: Iterable[str] | None = None,
        output_names: Iterable[str] | None = None,
        dequantize_on_cuda: bool = True,
        cuda_float16: bool = False,
    ) -> None:
        if device not in DEVICES:
            raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
        self.model_path = check_model_file(model_path)
        self.n_threads = resolve_n_jobs(n_threads)
        self.requested_device = device
        self.fallback_reason: str | None = None
        self._expected_inputs = None if input_names is None else set(input_names)
        self._expected_outputs = None if output_names is None else list(output_names)
        self._dequantize_on_cuda, self._cuda_float16 = dequantize_on_cuda, cuda_float16
        self._start(device)

    def _start(self, device: str) -> None:
        """Open the session on ``device`` and check it; sets everything derived from it."""
        ort = _onnxruntime()
        options = ort.SessionOptions()
        # 1 in a child forked after threads ran: a new pool there spins forever on the calling
        # thread's state inherited from the parent's pool (onnxruntime 1.32, measured)
        options.intra_op_num_threads = pool_threads(self.n_threads)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # the fallback is reported by us, not by ORT's log

        cuda_offered = _CUDA in ort.get_available_providers()
        if device == "cuda" and not cuda_offered:
            raise DeviceUnavailableError(
                "device='cuda' but this onnxruntime build has no CUDAExecutionProvider "
                f"(providers: {ort.get_available_providers()}); install 'qascore[gpu]' instead of 'qascore[onnx]'"
            )
        providers = [_CUDA, _CPU] if device in ("cuda", "auto") and cuda_offered else [_CPU]
        self.graph = "as-stored"
        source: str | bytes = str(self.model_path)
        if _CUDA in providers:
            _preload_cuda_libraries(ort)
            rewritten, graph = _graph_for_cuda(self.model_path, self._dequantize_on_cuda, self._cuda_float16)
            if rewritten is not None:
                source, self.graph = rewritten, graph
        self._session = self._open(ort, source, options, providers)
        self._pid: int | None = os.getpid()
        _open_sessions.add(self)

        got = self._session.get_providers()
        self.device = "cuda" if got and got[0] == _CUDA else "cpu"
        if _CUDA in providers and self.device != "cuda":
            self.fallback_reason = f"onnxruntime was given CUDA but the session runs on {got}"
            if device == "cuda":
                raise DeviceUnavailableError(
                    f"device='cuda' but {self.fallback_reason}: no usable GPU or CUDA/cuDNN libraries"
                )
            warnings.warn(f"device='auto' fell back to the CPU: {self.fallback_reason}", RuntimeWarning, stacklevel=3)
            if self.graph != "as-stored":  # on the CPU the int8 graph is the fast one
                self.graph = "as-stored"
                self._session = self._open(ort, str(self.model_path), options, [_CPU])

        self._inputs = {i.name: i for i in self._session.get_inputs()}
        self._outputs = [o.name for o in self._session.get_outputs()]
        if self._expected_inputs is not None and self._expected_inputs != set(self._inputs):
            raise ModelInputError(
                f"{self.model_path}: model inputs {sorted(self._inputs)} "
                f"do not match the expected {sorted(self._expected_inputs)}"
            )
        if self._expected_outputs is not None:
            missing = [name for name in self._expected_outputs if name not in self._outputs]
            if missing:
                raise ModelInputError(f"{self.model_path}: model has no output(s) {missing}; it has {self._outputs}")
        self._input_dtypes = {name: _NUMPY_OF_ONNX.get(arg.type) for name, arg in self._inputs.items()}

    def _live(self):
        """The InferenceSession of this process: opened again after unpickling (on the device
        asked for) or in a forked child (on the CPU it ran on; CUDA cannot follow a fork)."""
        if self._session is not None and self._pid == os.getpid():
            return self._session
        if self._session is not None:  # forked after this session was opened
            if self.device == "cuda":
                raise ForkedSessionError(
                    f"{self.model_path}: this CUDA session was opened before the process forked, and CUDA "
                    "cannot be used in a forked child; start worker processes with "
                    "multiprocessing.get_context('spawn') or get_context('forkserver'), or open the model "
                    "in each worker"
                )
            self._start("cpu")
        else:
            self._start(self.requested_device)
        return self._session

    def __getstate__(self) -> dict:
        """The settings and what the last opening found; the session itself re-opens on first use."""
        state = {k: v for k, v in self.__dict__.items() if k not in _OPENED}
        state["_session"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _open(self, ort, source, options, providers):
        try:
            return ort.InferenceSession(source, sess_options=options, providers=providers)
        except Exception as exc:  # ORT raises its own Fail/InvalidGraph types
            raise ModelFileError(f"cannot load ONNX model {self.model_path}: {exc}") from exc

    @property
    def input_names(self) -> list[str]:
        self._live()
        return list(self._inputs)

    @property
    def output_names(self) -> list[str]:
        self._live()
        return list(self._outputs)

    def describe(self) -> str:
        """Short settings text for signatures: provider and thread count."""
        threads = "gpu" if self.device == "cuda" else str(self.n_threads)
        graph = "" if self.graph == "as-stored" else f"|graph:{self.graph}"
        return f"onnxruntime-{_onnxruntime().__version__}|device:{self.device}|threads:{threads}{graph}"

    def run(self, feeds: Mapping[str, np.ndarray], output_names: Iterable[str] | None = None) -> list[np.ndarray]:
        """Run the model on host arrays; inputs are cast to the dtypes the model declares."""
        session = self._live()
        unknown = set(feeds) - set(self._inputs)
        missing = set(self._inputs) - set(feeds)
        if unknown or missing:
            raise ModelInputError(
                f"{self.model_path}: fed inputs {sorted(feeds)} but the model takes {sorted(self._inputs)}"
            )
        arrays = {}
        for name, value in feeds.items():
            dtype = self._input_dtypes[name]
            arrays[name] = np.ascontiguousarray(value if dtype is None else np.asarray(value, dtype=dtype))
        names = list(output_names) if output_names is not None else self._outputs
        if self.device == "cuda":
            return self._run_bound(arrays, names)
        return session.run(names, arrays)

    def _run_bound(self, arrays: dict, names: list[str]) -> list[np.ndarray]:
        # io-binding lets ORT allocate outputs on the GPU and copy once, instead of per-run staging.
        binding = self._session.io_binding()
        for name, array in arrays.items():
            binding.bind_cpu_input(name, array)
        for name in names:
            binding.bind_output(name, "cuda")
        self._session.run_with_iobinding(binding)
        return binding.copy_outputs_to_cpu()
