/*===- Compiler.h - The pointwise compiler's C API ----------------*- C -*-===*\
|*                                                                            *|
|* Part of the pointwise project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The C API of libPointwiseC: compiles MLIR text holding `pointwise.map`
 * functions into kernel families (include/Pointwise/Compiler/Family.h) and
 * has the runtime link their host code in memory (pwLibraryLink), so that a
 * program without a linker or toolkit, e.g. the Python package through
 * ctypes, gets a `pwFamily` table to call `pwFamilyLaunch` on
 * (Pointwise/Runtime/Runtime.h).
 *
 * A compiled library can be saved (its host code as relocatable objects, one
 * per part of the variants that lowered together and one for the family
 * tables, with the GPU binaries embedded) and loaded again without compiling
 * anything: loading links the objects, which the runtime does alone
 * (pwLibraryOpen), without this library. The on-disk cache of the Python
 * package is made of such files.
 *
 * Every function that can fail returns a pwStatus and leaves a message for
 * pwcGetLastError(): MLIR diagnostics with their locations, or the reason.
 * Functions may be called from several threads; a library may be used from
 * any thread.
 */
#ifndef POINTWISE_C_COMPILER_H
#define POINTWISE_C_COMPILER_H

#include "Pointwise/Runtime/Runtime.h"

#if defined(__GNUC__)
#define PWC_API __attribute__((visibility("default")))
#else
#define PWC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Families compiled or loaded, with their host code. */
typedef struct pwcLibrary pwcLibrary;

/* "pointwise <version> (LLVM <version>)": compiled code depends on it, so
 * caches of compiled libraries key on it. */
PWC_API const char *pwcGetVersion(void);

/* The host machine code that compiled libraries hold: "<triple> <cpu>
 * <features>" of this machine, or "unknown host" where LLVM cannot describe
 * it (then pwcCompile fails). The first call (or the first compilation)
 * works it out for the process. A saved library records the runtime's
 * pwGetHostFingerprint instead, which loading checks. */
PWC_API const char *pwcGetHostTarget(void);

/* The calling thread's last error message ("" if none). Valid until the
 * thread's next failing call. */
PWC_API const char *pwcGetLastError(void);

/* Compiles every function of `source` (MLIR text of `length` bytes) that
 * holds a pointwise.map into a family and loads it. `options` (may be NULL)
 * is a space-separated list of key=value:
 *   target=cuda|cpu        GPU kernels (default) or host loops
 *   chip=sm_90             GPU architecture
 *   format=fatbin|bin|isa  embedded GPU code (isa: PTX for the driver's JIT)
 *   cuda-path=DIR          CUDA toolkit for bin/fatbin (ptxas)
 *   index-bitwidths=32,64  index variants to build (default 32: layouts
 *                          past 32-bit offsets run in 32-bit chunks)
 *   transpose=1|0          build shared-memory transpose variants
 *   block-size=N vector-bytes=N unroll=N tile-edge=N opt-level=N
 *                          (block-size, vector-bytes and unroll 0, the
 *                          defaults: decided per map)
 *   transpose-blocks-per-sm=N  resident blocks per multiprocessor of the
 *                          transpose variants (default 3; 0: no cap)
 *   variants=NAME,...|none compile only these variants (docs/Families.md
 *                          names them), or none; the family tables have a
 *                          row for every variant and a null entry for the
 *                          others (see pwcAddVariants, pwSetVariantLoader)
 * Unknown keys and bad values are errors. */
PWC_API pwStatus pwcCompile(const char *source, size_t length,
                            const char *options, pwcLibrary **library);

/* Writes `library`'s host code to `path` (pwLibrarySave: through a
 * temporary file and a rename, so concurrent writers never leave a torn
 * file). A library pwcLoad read keeps no objects to write again
 * (PW_ERROR_INVALID_VALUE). */
PWC_API pwStatus pwcSave(const pwcLibrary *library, const char *path);

/* Loads a file written by pwcSave (pwLibraryOpen): links its objects,
 * compiling nothing. A file saved on a host with another CPU fingerprint,
 * or not a saved library, is an error (PW_ERROR_INVALID_VALUE). */
PWC_API pwStatus pwcLoad(const char *path, pwcLibrary **library);

/* The family table of function `name`, or NULL (with an error message) if
 * the library has none. Valid until pwcDestroy. */
PWC_API const pwFamily *pwcGetFamily(pwcLibrary *library, const char *name);

/* Fills the null entries of family `name` of `library` with those
 * `variants` has: `variants` is the same function compiled (or loaded) with
 * the same options but another `variants=` selection, so that both tables
 * have the same rows (checked: PW_ERROR_INVALID_VALUE otherwise). Each entry
 * is stored atomically once complete, so threads launching the family at the
 * same time see a variant either missing or complete; entries `library`
 * already has are kept. On success `library` owns `variants` (destroyed
 * with it; do not use or destroy it); on failure the caller still does. */
PWC_API pwStatus pwcAddVariants(pwcLibrary *library, const char *name,
                                pwcLibrary *variants);

/* pwcAddVariants of the library saved at `path` (pwcSave's file, checked as
 * pwcLoad checks it), which `library` keeps. On failure nothing of the file
 * stays loaded. */
PWC_API pwStatus pwcLoadVariants(pwcLibrary *library, const char *name,
                                 const char *path);

/* Runs the library's destructors (unloading its GPU modules) and frees it.
 * NULL is ignored. */
PWC_API void pwcDestroy(pwcLibrary *library);

#ifdef __cplusplus
}
#endif

#endif /* POINTWISE_C_COMPILER_H */
