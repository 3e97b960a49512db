"""The C++ every user kernel is compiled with, on every target.

:data:`COMMON` gives kernels the same types on every device: ``float16``
(``__half`` under NVRTC, ``_Float16`` on the host), ``complex<float>`` /
``complex<double>`` (laid out as NumPy's complex types), ``CArray<T, N>``
(raw array parameters) and ``CIndexer<N>`` (``_ind``).  It compiles under
NVRTC (``__CUDACC_RTC__``), as host C++ under the cuda emulator's shim, and
for the cpu target after :data:`CPU_RUNTIME`.

:data:`CPU_RUNTIME` is what CUDA adds to C++, for the cpu target:
``threadIdx``/``blockIdx``/``blockDim``/``gridDim`` (per OS thread: one OS
thread runs a block at a time), ``__global__``/``__device__``, ``__shared__``
(``static thread_local``: one copy per block in flight), atomics (real
atomics: blocks run in parallel), and a launcher that runs a block's threads
one after another -- or, for kernels that call ``__syncthreads()``, as
fibers (``ucontext``) switched at each barrier, so every thread of the block
reaches a barrier before any passes it.

Nothing here is vendored; CUDA's names are used so the same source runs
everywhere.
"""

# C type names of NumPy dtypes in kernels (CuPy's spelling).
CTYPES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
    "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int",
    "int64": "long long", "uint64": "unsigned long long", "float16": "float16",
    "float32": "float", "float64": "double", "complex64": "complex<float>",
    "complex128": "complex<double>",
}

COMMON = r"""
/* ---- asnumpy.extension prelude ---------------------------------------- */
#ifdef __CUDACC_RTC__
#include <cuda_fp16.h>
typedef __half float16;
#define ASN_HD __device__ __forceinline__
#define ASN_MATH
__device__ __forceinline__ float16 asn_half_bits(unsigned short u) { return __ushort_as_half(u); }
#else
#include <cmath>
#include <math.h>
#include <stdint.h>
#include <string.h>
typedef _Float16 float16;
typedef _Float16 __half;
typedef _Float16 half;
#define ASN_HD inline
#define ASN_MATH std::
static inline float __half2float(float16 h) { return (float)h; }
static inline float16 __float2half(float f) { return (float16)f; }
static inline float16 __float2half_rn(float f) { return (float16)f; }
static inline float16 asn_half_bits(unsigned short u) { float16 h; memcpy(&h, &u, 2); return h; }
#endif

/* min/max as CUDA overloads them: any two arithmetic types, usual promotions */
template <class A, class B> ASN_HD auto min(A a, B b) -> decltype(a + b) {
    return b < a ? (decltype(a + b))b : (decltype(a + b))a;
}
template <class A, class B> ASN_HD auto max(A a, B b) -> decltype(a + b) {
    return a < b ? (decltype(a + b))b : (decltype(a + b))a;
}

/* complex<T>: NumPy's layout (real, imag), CuPy's spelling */
template <class T> struct complex {
    T re, im;
    ASN_HD complex() : re(0), im(0) {}
    ASN_HD complex(T r, T i = 0) : re(r), im(i) {}
    template <class U> ASN_HD complex(const complex<U>& z) : re((T)z.re), im((T)z.im) {}
    ASN_HD T real() const { return re; }
    ASN_HD T imag() const { return im; }
    ASN_HD void real(T r) { re = r; }
    ASN_HD void imag(T i) { im = i; }
    ASN_HD complex& operator+=(const complex& o) { re += o.re; im += o.im; return *this; }
    ASN_HD complex& operator-=(const complex& o) { re -= o.re; im -= o.im; return *this; }
    ASN_HD complex& operator*=(const complex& o) { *this = *this * o; return *this; }
    ASN_HD complex& operator/=(const complex& o) { *this = *this / o; return *this; }
    friend ASN_HD complex operator+(const complex& a, const complex& b) {
        return complex(a.re + b.re, a.im + b.im); }
    friend ASN_HD complex operator-(const complex& a, const complex& b) {
        return complex(a.re - b.re, a.im - b.im); }
    friend ASN_HD complex operator*(const complex& a, const complex& b) {
        return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
    friend ASN_HD complex operator/(const complex& a, const complex& b) {
        /* Smith's algorithm, as NumPy's complex division */
        T ar = b.re < 0 ? -b.re : b.re, ai = b.im < 0 ? -b.im : b.im;
        if (ar >= ai) {
            if (ar == 0 && ai == 0) return complex(a.re / ar, a.im / ai);
            T r = b.im / b.re, d = b.re + b.im * r;
            return complex((a.re + a.im * r) / d, (a.im - a.re * r) / d);
        }
        T r = b.re / b.im, d = b.re * r + b.im;
        return complex((a.re * r + a.im) / d, (a.im * r - a.re) / d);
    }
    friend ASN_HD complex operator-(const complex& a) { return complex(-a.re, -a.im); }
    friend ASN_HD complex operator+(const complex& a) { return a; }
    friend ASN_HD bool operator==(const complex& a, const complex& b) {
        return a.re == b.re && a.im == b.im; }
    friend ASN_HD bool operator!=(const complex& a, const complex& b) { return !(a == b); }
};
template <class T> ASN_HD T real(const complex<T>& z) { return z.re; }
template <class T> ASN_HD T imag(const complex<T>& z) { return z.im; }
template <class T> ASN_HD complex<T> conj(const complex<T>& z) { return complex<T>(z.re, -z.im); }
template <class T> ASN_HD T norm(const complex<T>& z) { return z.re * z.re + z.im * z.im; }
template <class T> ASN_HD T abs(const complex<T>& z) { return ASN_MATH hypot(z.re, z.im); }
template <class T> ASN_HD T arg(const complex<T>& z) { return ASN_MATH atan2(z.im, z.re); }
template <class T> ASN_HD complex<T> exp(const complex<T>& z) {
    T m = ASN_MATH exp(z.re);
    return complex<T>(m * ASN_MATH cos(z.im), m * ASN_MATH sin(z.im));
}
template <class T> ASN_HD complex<T> log(const complex<T>& z) {
    return complex<T>(ASN_MATH log(abs(z)), arg(z));
}
template <class T> ASN_HD complex<T> sqrt(const complex<T>& z) {
    T m = abs(z);
    T r = ASN_MATH sqrt((m + (z.re < 0 ? -z.re : z.re)) / 2);
    if (r == 0) return complex<T>(0, z.im);
    if (z.re >= 0) return complex<T>(r, z.im / (2 * r));
    return complex<T>((z.im < 0 ? -z.im : z.im) / (2 * r), z.im < 0 ? -r : r);
}
template <class T> ASN_HD complex<T> polar(T m, T t = 0) {
    return complex<T>(m * ASN_MATH cos(t), m * ASN_MATH sin(t));
}
/* mixed complex / real arithmetic (no <type_traits> under NVRTC) */
template <class S> struct asn_real_type { };
#define ASN_REAL(S) template <> struct asn_real_type<S> { typedef S type; };
ASN_REAL(bool) ASN_REAL(signed char) ASN_REAL(unsigned char) ASN_REAL(short)
ASN_REAL(unsigned short) ASN_REAL(int) ASN_REAL(unsigned int) ASN_REAL(long)
ASN_REAL(unsigned long) ASN_REAL(long long) ASN_REAL(unsigned long long) ASN_REAL(float)
ASN_REAL(double) ASN_REAL(float16)
#undef ASN_REAL
#define ASN_MIXED(op) \
    template <class T, class S, class R = typename asn_real_type<S>::type> \
    ASN_HD complex<T> operator op(const complex<T>& a, S b) { return a op complex<T>((T)(R)b); } \
    template <class T, class S, class R = typename asn_real_type<S>::type> \
    ASN_HD complex<T> operator op(S a, const complex<T>& b) { return complex<T>((T)(R)a) op b; }
ASN_MIXED(+) ASN_MIXED(-) ASN_MIXED(*) ASN_MIXED(/)
#undef ASN_MIXED

/* raw array parameters: data, size, shape and strides (bytes), any layout */
template <class T, int N> struct CArray {
    T* data_;
    long long size_;
    long long shape_[N > 0 ? N : 1];
    long long strides_[N > 0 ? N : 1];
    ASN_HD T* data() const { return data_; }
    ASN_HD long long size() const { return size_; }
    ASN_HD const long long* shape() const { return shape_; }
    ASN_HD const long long* strides() const { return strides_; }
    /* element i in C order (CuPy's CArray::operator[](ptrdiff_t)) */
    ASN_HD T& operator[](long long i) const {
        long long offset = 0;
        for (int d = N - 1; d >= 0; --d) {
            long long n = shape_[d] > 0 ? shape_[d] : 1;
            offset += (i % n) * strides_[d];
            i /= n;
        }
        return *(T*)((char*)data_ + offset);
    }
    /* element at a multi-index (N entries) */
    ASN_HD T& operator[](const long long* index) const {
        long long offset = 0;
        for (int d = 0; d < N; ++d) offset += index[d] * strides_[d];
        return *(T*)((char*)data_ + offset);
    }
};

/* the loop's index space: _ind.size(), _ind.get() (the current multi-index) */
template <int N> struct CIndexer {
    long long size_;
    long long shape_[N > 0 ? N : 1];
    long long index_[N > 0 ? N : 1];
    ASN_HD long long size() const { return size_; }
    ASN_HD const long long* shape() const { return shape_; }
    ASN_HD const long long* get() const { return index_; }
    ASN_HD void set(long long i) {
        for (int d = N - 1; d >= 0; --d) {
            index_[d] = i % shape_[d];
            i /= shape_[d];
        }
    }
    /* the next index in C order (an odometer: no division) */
    ASN_HD void next() {
        for (int d = N - 1; d >= 0; --d) {
            if (++index_[d] < shape_[d]) return;
            index_[d] = 0;
        }
    }
};
"""

# For the cpu target: CUDA's builtins on the host (see the module docstring).
CPU_RUNTIME = r"""
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <utility>
#include <type_traits>
#ifdef ASN_BARRIERS
#include <ucontext.h>
#endif
#define ASN_CPU 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static thread_local
#define __constant__ static const
#define __align__(n) alignas(n)
struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int a = 1, unsigned int b = 1, unsigned int c = 1) : x(a), y(b), z(c) {}
};
thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;
static const int warpSize = 1;
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T> static inline T __ldg(const T* p) { return *p; }
/* rsqrt/rsqrtf are CUDA's; C23 gives glibc 2.42's <math.h> extern ones (zig's bundled
   headers declare them), which an older host glibc lacks: asnumpy's own, under other names */
static inline float asn_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double asn_rsqrt(double x) { return 1.0 / sqrt(x); }
#define rsqrtf asn_rsqrtf
#define rsqrt asn_rsqrt
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __powf(x, y) powf(x, y)
static inline float __fdividef(float x, float y) { return x / y; }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, 8); return x; }
static inline int __float2int_rn(float x) { return (int)rintf(x); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }

/* atomics: blocks run on several OS threads at once */
template <class T> static inline T atomicAdd(T* p, T v) {
    if constexpr (std::is_integral<T>::value) {
        return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    } else {
        T old = *p, sum;
        do { sum = old + v; } while (!__atomic_compare_exchange(p, &old, &sum, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
        return old;
    }
}
#define ASN_ATOMIC(name, op) template <class T> static inline T name(T* p, T v) { \
    return __atomic_fetch_##op(p, v, __ATOMIC_SEQ_CST); }
ASN_ATOMIC(atomicSub, sub) ASN_ATOMIC(atomicAnd, and) ASN_ATOMIC(atomicOr, or)
ASN_ATOMIC(atomicXor, xor)
#undef ASN_ATOMIC
template <class T> static inline T atomicExch(T* p, T v) {
    T old; __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST); return old; }
template <class T> static inline T atomicCAS(T* p, T compare, T v) {
    __atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
template <class T> static inline T atomicMax(T* p, T v) {
    T old = *p;
    while (old < v && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST,
                                                 __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T> static inline T atomicMin(T* p, T v) {
    T old = *p;
    while (v < old && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST,
                                                 __ATOMIC_SEQ_CST)) {}
    return old;
}

/* ---- launching a kernel over blocks [b0, b1) of a grid ---------------- */
template <class... A, size_t... K>
static inline void asn_invoke(void (*f)(A...), void* const* args, std::index_sequence<K...>) {
    f(*static_cast<typename std::decay<A>::type*>(args[K])...);
}
/* each parameter's size and kind: 'p' pointer, 'i' integer or bool, 'f' floating,
   'c' complex, 'o' other */
template <class T> struct asn_kind {
    static const char value = std::is_pointer<T>::value ? 'p'
        : std::is_integral<T>::value ? 'i'
        : (std::is_floating_point<T>::value || std::is_same<T, float16>::value) ? 'f' : 'o';
};
template <class T> struct asn_kind<complex<T> > { static const char value = 'c'; };
template <class... A>
static int asn_param_info(void (*)(A...), long long* sizes, char* kinds, int capacity) {
    long long all[] = {0, (long long)sizeof(typename std::decay<A>::type)...};
    char all_kinds[] = {0, asn_kind<typename std::decay<A>::type>::value...};
    int n = (int)sizeof...(A);
    for (int k = 0; k < n && k < capacity; ++k) {
        sizes[k] = all[k + 1];
        kinds[k] = all_kinds[k + 1];
    }
    return n;
}
/* dynamic shared memory (extern __shared__, rewritten to use this pointer): dims[6]
   bytes, one buffer per OS thread, reused by the blocks it runs one after another */
thread_local char* asn_dynamic_shared = 0;
struct asn_shared_scope {
    explicit asn_shared_scope(unsigned bytes) {
        asn_dynamic_shared = 0;
        if (bytes) {
            asn_dynamic_shared = (char*)aligned_alloc(256, (bytes + 255u) / 256u * 256u);
            if (!asn_dynamic_shared) { fprintf(stderr, "asnumpy: out of memory\n"); abort(); }
        }
    }
    ~asn_shared_scope() { free(asn_dynamic_shared); asn_dynamic_shared = 0; }
};
static inline void asn_set_block(const unsigned* dims, long long b) {
    gridDim = dim3(dims[0], dims[1], dims[2]);
    blockDim = dim3(dims[3], dims[4], dims[5]);
    blockIdx.x = (unsigned)(b % dims[0]);
    blockIdx.y = (unsigned)((b / dims[0]) % dims[1]);
    blockIdx.z = (unsigned)(b / ((long long)dims[0] * dims[1]));
}
static inline void asn_set_thread(long long t) {
    threadIdx.x = (unsigned)(t % blockDim.x);
    threadIdx.y = (unsigned)((t / blockDim.x) % blockDim.y);
    threadIdx.z = (unsigned)(t / ((long long)blockDim.x * blockDim.y));
}

#ifndef ASN_BARRIERS
/* no barrier in the kernel: a block's threads run one after another */
template <class... A>
static void asn_launch(void (*f)(A...), void* const* args, const unsigned* dims,
                       long long b0, long long b1) {
    asn_shared_scope shared(dims[6]);
    long long threads = (long long)dims[3] * dims[4] * dims[5];
    for (long long b = b0; b < b1; ++b) {
        asn_set_block(dims, b);
        for (long long t = 0; t < threads; ++t) {
            asn_set_thread(t);
            asn_invoke(f, args, std::index_sequence_for<A...>{});
        }
    }
}
#else
/* __syncthreads(): each thread of a block is a fiber; a barrier switches to the
   next fiber, so a block's threads run round by round, barrier to barrier */
#define ASN_FIBER_STACK (128 * 1024)
struct asn_block_state {
    ucontext_t scheduler;
    ucontext_t* fibers;
    char* stacks;
    unsigned char* done;
    long long threads, current;
    void (*entry)(void*);
    void* closure;
};
thread_local asn_block_state* asn_block = 0;
static void __syncthreads() {
    asn_block_state* s = asn_block;
    swapcontext(&s->fibers[s->current], &s->scheduler);
}
static void asn_fiber_main() {
    asn_block_state* s = asn_block;
    s->entry(s->closure);
    s->done[s->current] = 1;
}
template <class... A> struct asn_call { void (*f)(A...); void* const* args; };
template <class... A> static void asn_call_entry(void* p) {
    asn_call<A...>* c = (asn_call<A...>*)p;
    asn_invoke(c->f, c->args, std::index_sequence_for<A...>{});
}
template <class... A>
static void asn_launch(void (*f)(A...), void* const* args, const unsigned* dims,
                       long long b0, long long b1) {
    asn_shared_scope shared(dims[6]);
    asn_block_state s;
    asn_call<A...> call = {f, args};
    s.threads = (long long)dims[3] * dims[4] * dims[5];
    s.fibers = (ucontext_t*)calloc(s.threads, sizeof(ucontext_t));
    s.stacks = (char*)malloc((size_t)s.threads * ASN_FIBER_STACK);
    s.done = (unsigned char*)calloc(s.threads, 1);
    if (!s.fibers || !s.stacks || !s.done) { fprintf(stderr, "asnumpy: out of memory\n"); abort(); }
    s.entry = asn_call_entry<A...>;
    s.closure = &call;
    asn_block = &s;
    for (long long b = b0; b < b1; ++b) {
        asn_set_block(dims, b);
        for (long long t = 0; t < s.threads; ++t) {
            getcontext(&s.fibers[t]);
            s.fibers[t].uc_stack.ss_sp = s.stacks + t * ASN_FIBER_STACK;
            s.fibers[t].uc_stack.ss_size = ASN_FIBER_STACK;
            s.fibers[t].uc_link = &s.scheduler;
            makecontext(&s.fibers[t], asn_fiber_main, 0);
            s.done[t] = 0;
        }
        for (long long live = s.threads; live > 0;) {      /* one round per barrier */
            live = 0;
            for (long long t = 0; t < s.threads; ++t) {
                if (s.done[t]) continue;
                s.current = t;
                asn_set_thread(t);
                swapcontext(&s.scheduler, &s.fibers[t]);
                live += !s.done[t];
            }
        }
    }
    asn_block = 0;
    free(s.fibers); free(s.stacks); free(s.done);
}
#endif
"""
