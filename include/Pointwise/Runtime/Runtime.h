/*===- Runtime.h - The pointwise CUDA runtime's C API -------------*- C -*-===*\
|*                                                                            *|
|* Part of the pointwise project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The C API of libPointwiseRuntime: devices, memory, streams, modules and
 * launches through the CUDA driver, which is loaded at run time (dlopen of
 * libcuda.so.1), and the launch of kernel families that pw-compile emits,
 * with the layout analysis and rank dispatch done per call.
 *
 * Every function returns a pwStatus. On failure, pwGetLastErrorMessage()
 * returns a message for the calling thread's last failed call. No function
 * aborts the process on bad input.
 *
 * Compiled code (pw-compile output and pw-run's JIT) launches on the calling
 * thread's current stream (pwSetStream), asynchronously, like the operators of
 * PyTorch. The default current stream is the legacy default stream (NULL).
 */
#ifndef POINTWISE_RUNTIME_RUNTIME_H
#define POINTWISE_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* The library is built with hidden visibility; these are its exports. */
#if defined(__GNUC__)
#define PW_RUNTIME_API __attribute__((visibility("default")))
#else
#define PW_RUNTIME_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pwStatus {
  PW_SUCCESS = 0,
  /* A null pointer, a byte or buffer size of 0 where one is needed, a
   * negative count or rank, or another argument the caller got wrong. A
   * negative size of a memref or shape is PW_ERROR_LAYOUT. */
  PW_ERROR_INVALID_VALUE = 1,
  /* libcuda.so.1 could not be loaded, or lacks a needed entry point. */
  PW_ERROR_NO_DRIVER = 2,
  /* The driver loaded, but there is no (such) CUDA device. */
  PW_ERROR_NO_DEVICE = 3,
  /* A CUDA driver call failed; the message names the call and the error. */
  PW_ERROR_DRIVER = 4,
  /* Operands that do not broadcast, outputs that overlap other operands,
   * misaligned or null data for non-empty operands, negative sizes, sizes
   * other than the declared static ones, a memref whose bytes do not fit
   * the address space. */
  PW_ERROR_LAYOUT = 5,
  /* No kernel variant or function of that name. */
  PW_ERROR_NOT_FOUND = 6,
  PW_ERROR_OUT_OF_MEMORY = 7,
  /* Not a status: makes every 32-bit value a valid pwStatus, so that a
   * caller's unknown code (pwGetStatusName(99)) is no undefined behaviour
   * in C++, whose enums otherwise hold only the bits of their largest
   * enumerator. */
  PW_STATUS_FORCE_INT32 = 0x7fffffff
} pwStatus;

/* A static name of `status` ("PW_ERROR_LAYOUT"). */
PW_RUNTIME_API const char *pwGetStatusName(pwStatus status);
/* The message of the calling thread's last failed call ("" if none). The
 * pointer stays valid until the thread's next failing call. */
PW_RUNTIME_API const char *pwGetLastErrorMessage(void);
/* The mgpu* functions that compiled code calls return no status: a failure
 * there becomes the calling thread's pending error (the first one is kept).
 * This returns it and clears it (PW_SUCCESS if none); its message is then
 * pwGetLastErrorMessage(). pwFamilyLaunch does this itself. */
PW_RUNTIME_API pwStatus pwTakePendingError(void);

/*===------------------------------ Devices -------------------------------===*/

/* Loads the driver and counts devices; 0 devices is PW_SUCCESS. */
PW_RUNTIME_API pwStatus pwGetDeviceCount(int *count);
/* Makes `device`'s primary context current on the calling thread; later calls
 * on every thread use that device, going back to its primary context when
 * other code made a context of another device current. Without a call, each
 * use takes the context current on the thread, else device 0's primary one
 * (or $POINTWISE_DEVICE's). */
PW_RUNTIME_API pwStatus pwSetDevice(int device);
/* A scoped device guard: makes `device`'s primary context current on the
 * calling thread, and this thread's later calls use `device` whatever
 * pwSetDevice chose (other threads are left alone) until it calls
 * pwExchangeDevice or pwSetDevice again. `*previous` (when not NULL)
 * receives the device whose context was current before, or -1 when none:
 * pass it back to end the scope, as PyTorch's device guard does. */
PW_RUNTIME_API pwStatus pwExchangeDevice(int device, int *previous);
/* The device's name, NUL-terminated, truncated to `size` bytes. */
PW_RUNTIME_API pwStatus pwGetDeviceName(int device, char *name, size_t size);
/* "sm_90" for compute capability 9.0. */
PW_RUNTIME_API pwStatus pwGetDeviceArch(int device, char *arch, size_t size);
PW_RUNTIME_API pwStatus pwDeviceSynchronize(void);

/*===------------------------------ Memory --------------------------------===*/

/* Copies and sets are ordered on the calling thread's current stream
 * (pwGetStream) and complete before they return. Zero bytes do nothing. */
PW_RUNTIME_API pwStatus pwMalloc(void **pointer, size_t bytes);
PW_RUNTIME_API pwStatus pwFree(void *pointer);
PW_RUNTIME_API pwStatus pwMemcpyHostToDevice(void *device, const void *host,
                                             size_t bytes);
PW_RUNTIME_API pwStatus pwMemcpyDeviceToHost(void *host, const void *device,
                                             size_t bytes);
PW_RUNTIME_API pwStatus pwMemcpyDeviceToDevice(void *to, const void *from,
                                               size_t bytes);
PW_RUNTIME_API pwStatus pwMemsetBytes(void *device, unsigned char value,
                                      size_t bytes);
/* Compiled programs allocate their temporaries on the current stream from
 * a memory pool of the runtime per device, which keeps freed memory for the
 * next call instead of giving it back at each synchronization. This gives
 * that kept memory back to the driver (memory still allocated, or whose
 * stream-ordered free has not completed, stays). */
PW_RUNTIME_API pwStatus pwReleaseCachedMemory(void);

/*===------------------------------ Streams -------------------------------===*/

typedef struct pwStreamOpaque *pwStream; /* a CUstream */
typedef struct pwEventOpaque *pwEvent;   /* a CUevent */

PW_RUNTIME_API pwStatus pwStreamCreate(pwStream *stream);
PW_RUNTIME_API pwStatus pwStreamDestroy(pwStream stream);
PW_RUNTIME_API pwStatus pwStreamSynchronize(pwStream stream);
/* The stream compiled code launches on, per thread; NULL is the legacy
 * default stream. Streams of other CUDA users (a PyTorch stream's
 * cuda_stream) are accepted as they are. */
PW_RUNTIME_API void pwSetStream(pwStream stream);
PW_RUNTIME_API pwStream pwGetStream(void);

PW_RUNTIME_API pwStatus pwEventCreate(pwEvent *event);
PW_RUNTIME_API pwStatus pwEventDestroy(pwEvent event);
PW_RUNTIME_API pwStatus pwEventRecord(pwEvent event, pwStream stream);
PW_RUNTIME_API pwStatus pwEventSynchronize(pwEvent event);
PW_RUNTIME_API pwStatus pwEventElapsedMilliseconds(float *milliseconds,
                                                   pwEvent start, pwEvent end);

/*===--------------------------- Modules, launch --------------------------===*/

typedef struct pwModuleOpaque *pwModule;
typedef struct pwFunctionOpaque *pwFunction; /* a CUfunction */

/* `image` is PTX text (NUL-terminated; `size` may count the NUL or not), a
 * cubin or a fatbin. The driver compiles PTX for the device. The module is
 * loaded into the current context now and into any other context on the
 * first pwModuleGetFunction there; unloading unloads it from all. A function
 * belongs to the context current when it was looked up: launch it there. */
PW_RUNTIME_API pwStatus pwModuleLoad(pwModule *module, const void *image,
                                     size_t size);
PW_RUNTIME_API pwStatus pwModuleUnload(pwModule module);
PW_RUNTIME_API pwStatus pwModuleGetFunction(pwFunction *function,
                                            pwModule module, const char *name);
PW_RUNTIME_API pwStatus pwLaunchKernel(pwFunction function, unsigned gridX,
                                       unsigned gridY, unsigned gridZ,
                                       unsigned blockX, unsigned blockY,
                                       unsigned blockZ,
                                       unsigned sharedMemoryBytes,
                                       pwStream stream, void **parameters);

/* For compiled code (pw-lower-to-gpu's transpose-blocks-per-sm): the dynamic
 * shared memory, in bytes, to launch a kernel that declares `staticBytes` of
 * shared memory with, so that shared memory lets at most `blocksPerSM` of
 * its blocks be resident on a multiprocessor of the current context's device
 * (whose shared memory per multiprocessor, per block and reserved per block
 * are read once per device): the least that keeps blocksPerSM + 1 blocks
 * out, so that the driver leaves L1 as much of the multiprocessor's memory
 * as it can (launches above 48 KiB of shared memory in all opt in to it).
 * 0 when the kernel's own shared memory already allows no more blocks, when
 * an argument is out of range, or when no context can be made current (the
 * launch that follows reports that). */
PW_RUNTIME_API int32_t pwOccupancySharedMemory(int32_t staticBytes,
                                               int32_t blocksPerSM);

/*===--------------------------- Kernel families --------------------------===*/

/* The start of a memref descriptor of rank `r` as MLIR lays it out: allocated
 * and aligned pointers and offset, followed in memory by r int64_t sizes and
 * r int64_t strides (elements). */
typedef struct pwMemRefDescriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
} pwMemRefDescriptor;

/* Element type codes of family operands. */
typedef enum pwElementType {
  PW_I1 = 0,
  PW_I8 = 1,
  PW_I16 = 2,
  PW_I32 = 3,
  PW_I64 = 4,
  PW_F16 = 5,
  PW_BF16 = 6,
  PW_F32 = 7,
  PW_F64 = 8,
} pwElementType;

/* Kinds of family arguments. */
enum {
  PW_ARGUMENT_SCALAR = 0,
  PW_ARGUMENT_MEMREF = 1,
};

/* A dynamic stride or offset in pwFamilyArgument's staticStrides and
 * staticOffset (MLIR's ShapedType::kDynamic). */
#define PW_DYNAMIC INT64_MIN

/* The layout of pwFamilyArgument that pw-compile writes into every
 * argument's `abiVersion`: 2 since the static strides and offset were added
 * (tables of older pw-compiles carry 0 there and are rejected, since their
 * arguments are laid out differently). */
#define PW_FAMILY_ABI_VERSION 2

/* One argument of the function a family was compiled from. */
typedef struct pwFamilyArgument {
  int32_t kind;        /* PW_ARGUMENT_* */
  int32_t elementType; /* pwElementType: of the memref, or the scalar */
  int32_t rank;        /* memrefs: the declared rank */
  int32_t abiVersion;  /* PW_FAMILY_ABI_VERSION */
  /* memrefs: the declared sizes, -1 for dynamic ones (rank entries); null
   * when every size is dynamic */
  const int64_t *staticSizes;
  /* memrefs: the declared strides (rank entries, elements), PW_DYNAMIC for
   * dynamic ones, and the declared offset (elements, or PW_DYNAMIC), as
   * MLIR's strides and offset of the memref type (an identity layout has
   * row-major strides and offset 0). Null staticStrides: every stride and
   * the offset are dynamic, and staticOffset is not read. */
  const int64_t *staticStrides;
  int64_t staticOffset;
} pwFamilyArgument;

/* Strategies of variants (pw-tile's). A linear-narrow variant is a linear
 * one with 8-byte vector accesses where the linear variant of its rank has
 * 16: the dispatch picks it when an operand's contiguous rows are not
 * 16-byte aligned (they then move lane by lane). */
enum {
  PW_STRATEGY_LINEAR = 0,
  PW_STRATEGY_TRANSPOSE = 1,
  PW_STRATEGY_LINEAR_NARROW = 2,
};

/* One variant: every memref operand has rank `rank` and dynamic sizes,
 * strides and offset, except that a transpose variant has stride 1 along the
 * last dim of every output, and along dim rank - 2 of argument
 * `transposedArgument`. `entry(args)` launches it: args[i] is the rank-`rank`
 * descriptor of memref argument i, or points to scalar argument i. A variant
 * that is not compiled (yet) has a null entry; whoever compiles it stores the
 * entry once its code is completely loaded, atomically with release order
 * (pwcAddVariants does), and never clears it while the table is in use, so a
 * launch sees either no entry or a complete variant. */
typedef struct pwVariant {
  int32_t rank;
  int32_t indexBitwidth; /* 32 or 64 */
  int32_t strategy;      /* PW_STRATEGY_* */
  int32_t transposedArgument;
  void (*entry)(void **args);
} pwVariant;

/* What pw-compile emits per function (`pw_family_<name>`): its arguments, the
 * map's outputs and inputs as argument indices (outputs first; a scalar
 * input's index is that of a scalar argument), and the variants. */
typedef struct pwFamily {
  const char *name;
  int32_t numArguments;
  int32_t numOutputs;
  int32_t numInputs;
  int32_t numVariants;
  const pwFamilyArgument *arguments;
  const int32_t *outputs;
  const int32_t *inputs;
  const pwVariant *variants;
} pwFamily;

/* The family index of pw-compile's .o and .so outputs (not of the JIT's
 * libraries, which look families up by name): each such object exports
 *
 *   const pwFamily *const *pw_library_families(int64_t *count);
 *
 * (a weak definition, one per linked library or executable), which returns
 * the tables of every family of every pw-compile object linked into the
 * library or executable that holds it and stores their number in *count.
 * Find it with dlsym on the library's own handle. */

/* Launches `family` on the current stream: args[i] is a pointer to memref
 * argument i's descriptor (of its declared rank), or to scalar argument i.
 * Checks each memref descriptor against the argument's declared type (sizes;
 * strides of dims of more than one element and the offset, unless the
 * memref is empty: those the compiled code could see), then the layout
 * (broadcasting, output overlap, null or misaligned data),
 * coalesces, picks the variant by coalesced rank, index width and strategy,
 * and launches it. Empty outputs launch nothing.
 *
 * Each thread remembers its last few successful decisions, keyed on the
 * family table's contents (but for the variants not launched) and the words
 * of every memref descriptor (not the scalars): a call with exactly the same
 * ones launches the same variant with the same descriptors without
 * analyzing the layouts again. */
PW_RUNTIME_API pwStatus pwFamilyLaunch(const pwFamily *family, void **args);

/* Compiles or loads variant `variant` of `family` on demand: called by
 * pwFamilyLaunch on the launching thread when the variant it chose has a
 * null entry, it returns once the entry is stored (PW_SUCCESS), or fails
 * with a status and up to `capacity` bytes of NUL-terminated `message`.
 * Threads that launch at once may call it for one variant at once: it must
 * compile the variant once and let the others wait for it. */
typedef pwStatus (*pwVariantLoader)(const pwFamily *family, int32_t variant,
                                    void *context, char *message,
                                    size_t capacity);

/* Makes `loader` (with `context`) the variant loader of `family`, or, when
 * `loader` is null, removes the family's loader. Without a loader, a launch
 * that chooses a variant with a null entry fails with PW_ERROR_NOT_FOUND
 * and a message naming the variant, and pwGetLastVariant() returns its
 * index, so that the caller can compile it, store its entry and launch
 * again. Remove the loader before the table goes away. */
PW_RUNTIME_API pwStatus pwSetVariantLoader(const pwFamily *family,
                                           pwVariantLoader loader,
                                           void *context);

/* For a launch whose outputs the caller allocates: the broadcast of the
 * inputs' shapes (NumPy rules) in *rank and shape[], and in outputStrides[]
 * dense strides (elements) for a new output of that shape in the memory
 * order of the first input that is not broadcast (row-major if none), the
 * layout library's rule (docs/Layout.md). Input i has ranks[i] dims; the
 * sizes and strides of all inputs are concatenated in sizes[] and
 * strides[]. `capacity` is the room in shape[] and outputStrides[]. Shapes
 * that do not broadcast give PW_ERROR_LAYOUT with a message naming them. */
PW_RUNTIME_API pwStatus pwPlanOutputLayout(
    int32_t numInputs, const int32_t *ranks, const int64_t *sizes,
    const int64_t *strides, int32_t capacity, int32_t *rank, int64_t *shape,
    int64_t *outputStrides);

/* The output overlap checks of one pointwise.map whose operands a compiled
 * program computed (subviews, casts), as the pass pw-runtime-overlap-checks
 * emits them before the map: the layout library's checkOutputOverlap, the
 * same rule pwFamilyLaunch applies (docs/Layout.md). The arguments are the
 * descriptor of a memref<?xi64>, as compiled code passes one: its
 * `size` words from aligned + offset, `stride` apart, are
 *
 *   numOutputs, numOperands, then for each operand (outputs first, then the
 *   memref inputs): the address of its aligned base, its element size in
 *   bytes, its rank r, its offset (elements), r sizes, r strides.
 *
 * Returns 1 when the operands may run as one parallel launch. Otherwise
 * returns 0, records the library's message (which operands, how) as the
 * thread's last error message (pwGetLastErrorMessage), and prints it to
 * stderr, since the program then stops at a cf.assert whose message is
 * static. Overlap is decided as for pwFamilyLaunch (docs/Layout.md). */
PW_RUNTIME_API int32_t pwCheckMapOverlap(int64_t *allocated, int64_t *aligned,
                                         int64_t offset, int64_t size,
                                         int64_t stride);

/* What the last pwFamilyLaunch on this thread chose (for tests, tools and
 * on-demand compilation): the variant's index in family->variants, also when
 * that variant has no entry (PW_ERROR_NOT_FOUND); -1 if the launch chose
 * none (empty, or failed before choosing). */
PW_RUNTIME_API int pwGetLastVariant(void);

/* Whether the last pwFamilyLaunch on this thread reused a remembered decision
 * (1) rather than analyzing the layouts (0), for tests and tools. */
PW_RUNTIME_API int pwGetLastLaunchCached(void);

/* Host code linked in memory: a library's x86-64 relocatable objects
 * (position-independent, small code model; what pwcCompile produces and
 * pwcSave keeps), linked by the runtime itself, so that loading a saved
 * library needs no compiler. Object i's constructors are gathered in a
 * function PW_LIBRARY_INIT_PREFIX "<i>" and its destructors in
 * PW_LIBRARY_FINI_PREFIX "<i>" (either may be absent). */
typedef struct pwLibraryOpaque *pwLibrary;
#define PW_LIBRARY_INIT_PREFIX "__pwc_library_init_"
#define PW_LIBRARY_FINI_PREFIX "__pwc_library_fini_"

/* Links `count` objects (objects[i], sizes[i] bytes each; copied) into one
 * new library and runs their constructors in order. Symbols they leave
 * undefined resolve to what another of them defines, then to this runtime's
 * exports and the compiler builtins host code calls (__udivti3), then to the
 * process's. PW_ERROR_INVALID_VALUE with a message when an object is
 * malformed or needs what the linker does not do. */
PW_RUNTIME_API pwStatus pwLibraryLink(const char *const *objects,
                                      const size_t *sizes, int32_t count,
                                      pwLibrary *library);

/* Writes `count` objects as a saved library at `path` (replaced): a header
 * naming this host's CPU (pwGetHostFingerprint), then each object's size
 * and bytes. */
PW_RUNTIME_API pwStatus pwLibrarySave(const char *const *objects,
                                      const size_t *sizes, int32_t count,
                                      const char *path);

/* Links the library saved at `path` (pwLibrarySave), refusing one saved on
 * a host with another CPU fingerprint, whose code may use instructions this
 * one lacks. */
PW_RUNTIME_API pwStatus pwLibraryOpen(const char *path, pwLibrary *library);

/* The address of the global symbol `name` the library defines, or null. */
PW_RUNTIME_API void *pwLibraryGetSymbol(pwLibrary library, const char *name);

/* Runs the library's destructors (last object first) and unmaps its code. */
PW_RUNTIME_API void pwLibraryClose(pwLibrary library);

/* What this host's CPU reports of itself (vendor, family, model, stepping
 * and feature flags, hex): two hosts with the same fingerprint run the same
 * machine code. */
PW_RUNTIME_API const char *pwGetHostFingerprint(void);

/* Stores into `into` the variant entries that `from` has and `into` lacks:
 * the two are tables of one function compiled with the same options but
 * for the variants compiled (PW_ERROR_INVALID_VALUE otherwise). The caller
 * keeps the code behind `from` as long as `into`, and serializes calls on
 * one `into`; launches on other threads see an entry only once it is
 * stored whole. */
PW_RUNTIME_API pwStatus pwFamilyTakeVariants(const pwFamily *into,
                                             const pwFamily *from);

#ifdef __cplusplus
}
#endif

#endif /* POINTWISE_RUNTIME_RUNTIME_H */
