"""The one C++ prelude of generated kernels, on every target.

:data:`PRELUDE` starts every generated translation unit -- the cuda back
end's ufunc kernels, user kernels (``asnumpy.extension``) and fused
functions, on cpu and cuda alike:

* **the target's block** (one ``#ifdef __CUDACC_RTC__``): under NVRTC half
  is cuda_fp16.h's ``__half`` (the include path must hold the CUDA runtime
  headers) and math names are CUDA's device functions; as host C++ (the cpu
  target, the cuda emulator's shim) half is ``_Float16`` with CUDA's names
  for it (``__half``, ``__half2float`` ...) and math is ``<cmath>``'s
  (``ASN_STD`` qualifies it);
* **storage types**: ``asn_half`` (``float16`` in kernels' sources),
  ``asn_complex<T>`` (NumPy's layout; ``complex<T>`` in kernels' sources,
  ``asn_complex64/128`` for NumPy's types), ``asn_vec``;
* **casts and math**: ``asn_cast`` (NumPy's unsafe casting), the
  classification and real/integer/complex helpers the ufunc C forms call
  (:mod:`.functions`), from NumPy's documented loop semantics;
* **user kernels' names**: CUDA's ``min``/``max``, ``real``/``imag``/
  ``conj``/``abs``/``exp``/``log``/``sqrt``/``polar`` of complex values,
  complex-real arithmetic, ``CArray<T, N>`` (raw array parameters) and
  ``CIndexer<N>`` (``_ind``).

The prelude's functions are ``__device__ __forceinline__``: NVRTC knows the
qualifiers; a host translation unit defines them first (the host target with
:data:`HOST_QUALIFIERS`, the emulator with its shim, fusion with its own
header).  :data:`CPU_RUNTIME` follows the prelude on the host target: what
CUDA adds to C++ -- ``threadIdx``/``blockIdx``/``blockDim``/``gridDim`` (per
OS thread: one OS thread runs a block at a time), atomics (real atomics:
blocks run in parallel), and a launcher that runs a block's threads one
after another -- or, for kernels that call ``__syncthreads()``, as fibers
(``ucontext``) switched at each barrier, so every thread of the block
reaches a barrier before any passes it.

Nothing here is vendored; CUDA's names are used so the same source runs
everywhere.
"""

__all__ = ["CPU_RUNTIME", "HOST_QUALIFIERS", "PRELUDE"]

PRELUDE = r"""
/* ---- asnumpy prelude: the target's block (NVRTC, else host C++) ----- */
#ifdef __CUDACC_RTC__
#include <cuda_fp16.h>
typedef __half asn_half;
__device__ __forceinline__ float asn_h2f(asn_half h) { return __half2float(h); }
__device__ __forceinline__ asn_half asn_f2h(float f) { return __float2half_rn(f); }
__device__ __forceinline__ asn_half asn_d2h(double d) { return __double2half(d); }
__device__ __forceinline__ unsigned short asn_hbits(asn_half h) { return __half_as_ushort(h); }
__device__ __forceinline__ asn_half asn_hfrom(unsigned short u) { return __ushort_as_half(u); }
__device__ __forceinline__ int asn_popc(unsigned long long x) { return __popcll(x); }
#define ASN_STD
#else
#include <cmath>
#include <cstring>
typedef _Float16 asn_half;
static inline float asn_h2f(asn_half h) { return (float)h; }
static inline asn_half asn_f2h(float f) { return (asn_half)f; }
static inline asn_half asn_d2h(double d) { return (asn_half)d; }
static inline unsigned short asn_hbits(asn_half h) { unsigned short u; std::memcpy(&u, &h, 2); return u; }
static inline asn_half asn_hfrom(unsigned short u) { asn_half h; std::memcpy(&h, &u, 2); return h; }
static inline int asn_popc(unsigned long long x) { return __builtin_popcountll(x); }
#define ASN_STD std::
#include <math.h>
#include <stdint.h>
#include <string.h>
/* CUDA's names for half, which kernels' sources may use */
typedef asn_half __half;
typedef asn_half half;
static inline float __half2float(asn_half h) { return (float)h; }
static inline asn_half __float2half(float f) { return (asn_half)f; }
static inline asn_half __float2half_rn(float f) { return (asn_half)f; }
#endif
typedef asn_half float16;       /* kernels' sources say float16 */

/* the complex type: NumPy's layout (real, imag), zero when default-constructed;
   kernels' sources say complex<T> (CuPy's spelling) */
template <class T> struct asn_complex {
    T re, im;
    __device__ __forceinline__ asn_complex() : re(0), im(0) {}
    __device__ __forceinline__ asn_complex(T r, T i = 0) : re(r), im(i) {}
    template <class U> __device__ __forceinline__ asn_complex(const asn_complex<U>& z) : re((T)z.re), im((T)z.im) {}
    __device__ __forceinline__ T real() const { return re; }
    __device__ __forceinline__ T imag() const { return im; }
    __device__ __forceinline__ void real(T r) { re = r; }
    __device__ __forceinline__ void imag(T i) { im = i; }
    __device__ __forceinline__ asn_complex& operator+=(const asn_complex& o) { re += o.re; im += o.im; return *this; }
    __device__ __forceinline__ asn_complex& operator-=(const asn_complex& o) { re -= o.re; im -= o.im; return *this; }
    __device__ __forceinline__ asn_complex& operator*=(const asn_complex& o) { *this = *this * o; return *this; }
    __device__ __forceinline__ asn_complex& operator/=(const asn_complex& o) { *this = *this / o; return *this; }
    friend __device__ __forceinline__ bool operator==(const asn_complex& a, const asn_complex& b) {
        return a.re == b.re && a.im == b.im; }
    friend __device__ __forceinline__ bool operator!=(const asn_complex& a, const asn_complex& b) { return !(a == b); }
};
template <class T> using complex = asn_complex<T>;
typedef asn_complex<float> asn_complex64;
typedef asn_complex<double> asn_complex128;
template <class T> __device__ __forceinline__ asn_complex<T> asn_cpack(T re, T im) {
    asn_complex<T> z; z.re = re; z.im = im; return z;
}
/* N elements moved by one aligned vector access (N * sizeof(T) <= 16 bytes) */
template <class T, int N> struct alignas(sizeof(T) * N) asn_vec { T v[N]; };

/* ---- type traits (no <type_traits> under NVRTC) ----------------------- */
template <class A, class B> struct asn_same { static const bool value = false; };
template <class A> struct asn_same<A, A> { static const bool value = true; };
template <class T> struct asn_is_complex { static const bool value = false; };
template <class T> struct asn_is_complex<asn_complex<T> > { static const bool value = true; typedef T real; };
template <class T> struct asn_is_float { static const bool value = false; };
template <> struct asn_is_float<float> { static const bool value = true; };
template <> struct asn_is_float<double> { static const bool value = true; };
template <class T> struct asn_is_half { static const bool value = asn_same<T, asn_half>::value; };
template <class T> struct asn_is_int {
    static const bool value = !asn_same<T, bool>::value && !asn_is_float<T>::value
        && !asn_is_half<T>::value && !asn_is_complex<T>::value;
};
template <class T> struct asn_is_signed { static const bool value = (T)(-1) < (T)0; };
/* unsigned type of at least int width: arithmetic in it wraps, never promotes */
template <class T> struct asn_uwide { typedef unsigned int type; };
template <> struct asn_uwide<long long> { typedef unsigned long long type; };
template <> struct asn_uwide<unsigned long long> { typedef unsigned long long type; };
/* half is computed in float (as NumPy's half loops do) */
template <class T> struct asn_compute { typedef T type; };
template <> struct asn_compute<asn_half> { typedef float type; };

/* ---- casts: NumPy's unsafe casting -------------------------------------
   float -> integer goes through long long (unsigned long long for uint64),
   which reproduces NumPy on x86-64 for values inside the int64 range;
   out-of-range and NaN conversions are undefined in NumPy as well. */
template <class To, class From> __device__ __forceinline__ To asn_cast(From x) {
    if constexpr (asn_same<To, From>::value) {
        return x;
    } else if constexpr (asn_is_complex<From>::value) {
        if constexpr (asn_is_complex<To>::value) {
            typedef typename asn_is_complex<To>::real R;
            return asn_cpack<R>((R)x.re, (R)x.im);
        } else if constexpr (asn_same<To, bool>::value) {
            return x.re != 0 || x.im != 0;
        } else {
            return asn_cast<To>(x.re);
        }
    } else if constexpr (asn_is_complex<To>::value) {
        typedef typename asn_is_complex<To>::real R;
        return asn_cpack<R>(asn_cast<R>(x), (R)0);
    } else if constexpr (asn_is_half<From>::value) {
        return asn_cast<To>(asn_h2f(x));
    } else if constexpr (asn_is_half<To>::value) {
        if constexpr (asn_same<From, double>::value) return asn_d2h(x);
        else if constexpr (asn_same<From, long long>::value || asn_same<From, unsigned long long>::value)
            return asn_d2h((double)x);
        else return asn_f2h((float)x);
    } else if constexpr (asn_is_float<From>::value && asn_is_int<To>::value) {
        if constexpr (asn_same<To, unsigned long long>::value)
            return x < (From)0 ? (To)(long long)x : (To)x;
        else return (To)(long long)x;
    } else {
        return (To)x;
    }
}

/* ---- classification --------------------------------------------------- */
template <class T> __device__ __forceinline__ bool asn_isnan(T x) {
    if constexpr (asn_is_complex<T>::value) return ASN_STD isnan(x.re) || ASN_STD isnan(x.im);
    else if constexpr (asn_is_half<T>::value) return (asn_hbits(x) & 0x7fffu) > 0x7c00u;
    else if constexpr (asn_is_float<T>::value) return ASN_STD isnan(x);
    else return false;
}
template <class T> __device__ __forceinline__ bool asn_isinf(T x) {
    if constexpr (asn_is_complex<T>::value) return ASN_STD isinf(x.re) || ASN_STD isinf(x.im);
    else if constexpr (asn_is_half<T>::value) return (asn_hbits(x) & 0x7fffu) == 0x7c00u;
    else if constexpr (asn_is_float<T>::value) return ASN_STD isinf(x);
    else return false;
}
template <class T> __device__ __forceinline__ bool asn_isfinite(T x) {
    if constexpr (asn_is_complex<T>::value) return ASN_STD isfinite(x.re) && ASN_STD isfinite(x.im);
    else if constexpr (asn_is_half<T>::value) return (asn_hbits(x) & 0x7c00u) != 0x7c00u;
    else if constexpr (asn_is_float<T>::value) return ASN_STD isfinite(x);
    else return true;
}
template <class T> __device__ __forceinline__ bool asn_signbit(T x) {
    if constexpr (asn_is_half<T>::value) return (asn_hbits(x) & 0x8000u) != 0;
    else return ASN_STD signbit(x);
}
/* NumPy's truth value: nonzero; NaN is true; complex if either part is */
template <class T> __device__ __forceinline__ bool asn_nonzero(T x) { return asn_cast<bool>(x); }

/* ---- real math: one overloaded name per C function -------------------- */
#define ASN_MATH1(name) \
    __device__ __forceinline__ float asn_##name(float x) { return name##f(x); } \
    __device__ __forceinline__ double asn_##name(double x) { return name(x); }
#define ASN_MATH2(name) \
    __device__ __forceinline__ float asn_##name(float x, float y) { return name##f(x, y); } \
    __device__ __forceinline__ double asn_##name(double x, double y) { return name(x, y); }
ASN_MATH1(sin) ASN_MATH1(cos) ASN_MATH1(tan) ASN_MATH1(asin) ASN_MATH1(acos) ASN_MATH1(atan)
ASN_MATH1(sinh) ASN_MATH1(cosh) ASN_MATH1(tanh) ASN_MATH1(asinh) ASN_MATH1(acosh) ASN_MATH1(atanh)
ASN_MATH1(exp) ASN_MATH1(exp2) ASN_MATH1(expm1) ASN_MATH1(log) ASN_MATH1(log2) ASN_MATH1(log10)
ASN_MATH1(log1p) ASN_MATH1(sqrt) ASN_MATH1(cbrt) ASN_MATH1(floor) ASN_MATH1(ceil) ASN_MATH1(trunc)
ASN_MATH1(rint) ASN_MATH1(fabs)
ASN_MATH2(atan2) ASN_MATH2(hypot) ASN_MATH2(pow) ASN_MATH2(fmod) ASN_MATH2(copysign)
ASN_MATH2(nextafter)
__device__ __forceinline__ float asn_ldexp(float x, int e) { return ldexpf(x, e); }
__device__ __forceinline__ double asn_ldexp(double x, int e) { return ldexp(x, e); }
__device__ __forceinline__ float asn_frexp(float x, int *e) { return frexpf(x, e); }
__device__ __forceinline__ double asn_frexp(double x, int *e) { return frexp(x, e); }
__device__ __forceinline__ float asn_modf(float x, float *i) { return modff(x, i); }
__device__ __forceinline__ double asn_modf(double x, double *i) { return modf(x, i); }

/* ---- integers: wrapping arithmetic and NumPy's integer loop rules ----- */
template <class T> __device__ __forceinline__ typename asn_uwide<T>::type asn_uabs(T a) {
    typedef typename asn_uwide<T>::type W;
    if constexpr (asn_is_signed<T>::value) return a < 0 ? (W)0 - (W)a : (W)a;
    else return (W)a;
}
template <class T> __device__ __forceinline__ T asn_add(T a, T b) {
    if constexpr (asn_is_int<T>::value) { typedef typename asn_uwide<T>::type W; return (T)((W)a + (W)b); }
    else if constexpr (asn_same<T, bool>::value) return a || b;
    else return a + b;
}
template <class T> __device__ __forceinline__ T asn_sub(T a, T b) {
    if constexpr (asn_is_int<T>::value) { typedef typename asn_uwide<T>::type W; return (T)((W)a - (W)b); }
    else return a - b;
}
template <class T> __device__ __forceinline__ T asn_mul(T a, T b) {
    if constexpr (asn_is_int<T>::value) { typedef typename asn_uwide<T>::type W; return (T)((W)a * (W)b); }
    else if constexpr (asn_same<T, bool>::value) return a && b;
    else return a * b;
}
template <class T> __device__ __forceinline__ T asn_neg(T a) {
    if constexpr (asn_is_int<T>::value) { typedef typename asn_uwide<T>::type W; return (T)((W)0 - (W)a); }
    else return -a;
}
template <class T> __device__ __forceinline__ T asn_int_min() {
    typedef typename asn_uwide<T>::type W;
    return (T)((W)1 << (sizeof(T) * 8 - 1));
}
/* floor division with Python signs; x // 0 == 0; MIN // -1 wraps to MIN */
template <class T> __device__ __forceinline__ T asn_int_floordiv(T a, T b) {
    if (b == 0) return 0;
    if constexpr (asn_is_signed<T>::value) {
        if (b == (T)-1) return asn_neg(a);
        T q = (T)(a / b);
        if ((T)(a % b) != 0 && ((a < 0) != (b < 0))) --q;
        return q;
    } else {
        return (T)(a / b);
    }
}
/* remainder with the sign of the divisor; x % 0 == 0 */
template <class T> __device__ __forceinline__ T asn_int_remainder(T a, T b) {
    if (b == 0) return 0;
    if constexpr (asn_is_signed<T>::value) {
        if (b == (T)-1) return 0;
        T r = (T)(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);
        return r;
    } else {
        return (T)(a % b);
    }
}
/* C remainder (sign of the dividend); x fmod 0 == 0 */
template <class T> __device__ __forceinline__ T asn_int_fmod(T a, T b) {
    if (b == 0) return 0;
    if constexpr (asn_is_signed<T>::value) { if (b == (T)-1) return 0; }
    return (T)(a % b);
}
/* a ** b by squaring, wrapping.  NumPy raises ValueError for a negative
   exponent; here the result is the truncated exact value: 1 for a == 1,
   +-1 for a == -1, else 0. */
template <class T> __device__ __forceinline__ T asn_int_power(T a, T b) {
    typedef typename asn_uwide<T>::type W;
    if constexpr (asn_is_signed<T>::value) {
        if (b < 0) return a == 1 ? (T)1 : (a == -1 ? (T)((b & 1) ? -1 : 1) : (T)0);
    }
    W r = 1, base = (W)a;
    unsigned long long e = (unsigned long long)b;
    while (e) { if (e & 1ull) r *= base; base *= base; e >>= 1; }
    return (T)r;
}
/* shifts by a negative amount or >= the bit width give 0 (-1 for >> of a negative) */
template <class T> __device__ __forceinline__ T asn_lshift(T a, T b) {
    typedef typename asn_uwide<T>::type W;
    if ((unsigned long long)b < sizeof(T) * 8) return (T)((W)a << b);
    return 0;
}
template <class T> __device__ __forceinline__ T asn_rshift(T a, T b) {
    if ((unsigned long long)b < sizeof(T) * 8) return (T)(a >> b);
    if constexpr (asn_is_signed<T>::value) { if (a < 0) return (T)-1; }
    return 0;
}
template <class W> __device__ __forceinline__ W asn_ugcd(W x, W y) {
    while (x != 0) { W c = x; x = y % x; y = c; }
    return y;
}
/* gcd and lcm of the absolute values (abs(MIN) wraps to MIN, as NumPy) */
template <class T> __device__ __forceinline__ T asn_gcd(T a, T b) { return (T)asn_ugcd(asn_uabs(a), asn_uabs(b)); }
template <class T> __device__ __forceinline__ T asn_lcm(T a, T b) {
    typedef typename asn_uwide<T>::type W;
    W x = asn_uabs(a), y = asn_uabs(b), g = asn_ugcd(x, y);
    return g == 0 ? (T)0 : (T)(x / g * y);
}
/* 1 / x truncated; 1 / 0 is what x86-64 NumPy gives (MIN for 32/64-bit
   signed, 0 otherwise) */
template <class T> __device__ __forceinline__ T asn_int_reciprocal(T a) {
    if (a == 0) {
        if constexpr (asn_is_signed<T>::value && sizeof(T) >= 4) return asn_int_min<T>();
        return 0;
    }
    if (a == 1) return 1;
    if constexpr (asn_is_signed<T>::value) { if (a == (T)-1) return (T)-1; }
    return 0;
}
/* mixed signed/unsigned 64-bit comparisons (NumPy's qQ->? loops) */
template <class A, class B> __device__ __forceinline__ int asn_cmp3(A a, B b) {
    if constexpr (asn_is_signed<A>::value && !asn_is_signed<B>::value && asn_is_int<B>::value) {
        if (a < 0) return -1;
        unsigned long long x = (unsigned long long)a;
        return x < b ? -1 : (x > b ? 1 : 0);
    } else if constexpr (!asn_is_signed<A>::value && asn_is_int<A>::value && asn_is_signed<B>::value) {
        return -asn_cmp3(b, a);
    } else {
        return a < b ? -1 : (a > b ? 1 : 0);
    }
}

/* ---- reals: NumPy's npy_math rules ------------------------------------ */
/* npy_divmod: floor quotient and Python-sign remainder */
template <class T> __device__ __forceinline__ T asn_divmod(T a, T b, T &mod) {
    T m = asn_fmod(a, b);
    if (b == 0) { mod = m; return a / b; }
    T div = (a - m) / b;
    if (m != 0) {
        if ((b < 0) != (m < 0)) { m += b; div -= (T)1; }
    } else {
        m = asn_copysign((T)0, b);
    }
    T fl;
    if (div != 0) {
        fl = asn_floor(div);
        if (div - fl > (T)0.5) fl += (T)1;
    } else {
        fl = asn_copysign((T)0, a / b);
    }
    mod = m;
    return fl;
}
template <class T> __device__ __forceinline__ T asn_floordiv(T a, T b) {
    if constexpr (asn_is_int<T>::value) return asn_int_floordiv(a, b);
    else { if (b == 0) return a / b; T m; return asn_divmod(a, b, m); }
}
template <class T> __device__ __forceinline__ T asn_remainder(T a, T b) {
    if constexpr (asn_is_int<T>::value) return asn_int_remainder(a, b);
    else { if (b == 0) return asn_fmod(a, b); T m; asn_divmod(a, b, m); return m; }
}
template <class T> __device__ __forceinline__ T asn_sign(T a) {
    if constexpr (asn_is_signed<T>::value && asn_is_int<T>::value) return (T)((a > 0) - (a < 0));
    else if constexpr (asn_is_int<T>::value) return (T)(a > 0);
    else return a > 0 ? (T)1 : (a < 0 ? (T)-1 : (a == 0 ? (T)0 : a));
}
template <class T> __device__ __forceinline__ T asn_heaviside(T x, T h0) {
    if (x != x) return x;
    if (x == 0) return h0;
    return x < 0 ? (T)0 : (T)1;
}
template <class T> __device__ __forceinline__ T asn_logaddexp(T x, T y) {
    if (x == y) return x + (T)0.693147180559945309417232121458176568;
    T d = x - y;
    if (d > 0) return x + asn_log1p(asn_exp(-d));
    if (d <= 0) return y + asn_log1p(asn_exp(d));
    return d;
}
template <class T> __device__ __forceinline__ T asn_logaddexp2(T x, T y) {
    const T log2e = (T)1.442695040888963407359924681001892137;
    if (x == y) return x + (T)1;
    T d = x - y;
    if (d > 0) return x + log2e * asn_log1p(asn_exp2(-d));
    if (d <= 0) return y + log2e * asn_log1p(asn_exp2(d));
    return d;
}
/* distance to the next value away from zero (NaN for inf and NaN) */
template <class T> __device__ __forceinline__ T asn_spacing(T x) {
    if (!asn_isfinite(x)) return x - x;
    if (x == 0) return asn_nextafter((T)0, (T)1);
    return asn_nextafter(x, asn_copysign((T)1 / (T)0, x)) - x;
}
__device__ __forceinline__ asn_half asn_half_spacing(asn_half x) {
    /* npy_half_spacing, on the bits: always positive */
    unsigned short h = asn_hbits(x), e = h & 0x7c00u, s = h & 0x03ffu, r;
    if (e == 0x7c00u) r = 0x7e00u;
    else if (h == 0x7bffu) r = 0x7c00u;
    else if ((h & 0x8000u) && s == 0) {
        if (e > 0x2c00u) r = e - 0x2c00u;
        else if (e > 0x0400u) r = 1u << ((e >> 10) - 2);
        else r = 1u;
    } else if (e > 0x2800u) r = e - 0x2800u;
    else if (e > 0x0400u) r = 1u << ((e >> 10) - 1);
    else r = 1u;
    return asn_hfrom(r);
}
__device__ __forceinline__ asn_half asn_half_nextafter(asn_half hx, asn_half hy) {
    unsigned short x = asn_hbits(hx), y = asn_hbits(hy), r;
    if (asn_isnan(hx) || asn_isnan(hy)) r = 0x7e00u;
    else if (x == y || ((x | y) & 0x7fffu) == 0) r = x;
    else if ((x & 0x7fffu) == 0) r = (y & 0x8000u) + 1;
    else if (!(x & 0x8000u)) r = ((short)x > (short)y) ? x - 1 : x + 1;
    else r = (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) ? x - 1 : x + 1;
    return asn_hfrom(r);
}
/* maximum/minimum propagate NaN, fmax/fmin ignore it; ties give NumPy's operand */
template <class T> __device__ __forceinline__ T asn_maximum(T a, T b) { return (a > b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T asn_minimum(T a, T b) { return (a < b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T asn_half_maximum(T a, T b) { return (a >= b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T asn_half_minimum(T a, T b) { return (a <= b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T asn_fmax(T a, T b) { return (a >= b || b != b) ? a : b; }
template <class T> __device__ __forceinline__ T asn_fmin(T a, T b) { return (a <= b || b != b) ? a : b; }
template <class T> __device__ __forceinline__ T asn_ldexp_clamped(T x, long long e) {
    return asn_ldexp(x, (int)(e > 2147483647LL ? 2147483647LL : (e < -2147483647LL - 1 ? -2147483647LL - 1 : e)));
}

/* ---- complex ---------------------------------------------------------- */
#define ASN_C template <class R> __device__ __forceinline__ asn_complex<R>
#define ASN_CB template <class R> __device__ __forceinline__ bool
ASN_C operator+(asn_complex<R> a, asn_complex<R> b) { return asn_cpack(a.re + b.re, a.im + b.im); }
ASN_C operator-(asn_complex<R> a, asn_complex<R> b) { return asn_cpack(a.re - b.re, a.im - b.im); }
ASN_C operator-(asn_complex<R> a) { return asn_cpack(-a.re, -a.im); }
ASN_C operator+(asn_complex<R> a) { return a; }
ASN_C operator*(asn_complex<R> a, asn_complex<R> b) {
    return asn_cpack(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
/* Smith's division, with NumPy's zero-divisor rule */
ASN_C operator/(asn_complex<R> a, asn_complex<R> b) {
    R ar = asn_fabs(b.re), ai = asn_fabs(b.im);
    if (ar >= ai) {
        if (ar == 0 && ai == 0) return asn_cpack(a.re / ar, a.im / ar);
        R rat = b.im / b.re, scl = (R)1 / (b.re + b.im * rat);
        return asn_cpack((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    R rat = b.re / b.im, scl = (R)1 / (b.im + b.re * rat);
    return asn_cpack((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
ASN_C asn_cscale(asn_complex<R> a, R s) { return asn_cpack(a.re * s, a.im * s); }
ASN_C asn_mul_i(asn_complex<R> a) { return asn_cpack(-a.im, a.re); }       /* i a */
ASN_C asn_mul_negi(asn_complex<R> a) { return asn_cpack(a.im, -a.re); }    /* -i a */
/* lexicographic order, NaN-aware as NumPy's CLT/CLE/... */
ASN_CB asn_ceq(asn_complex<R> a, asn_complex<R> b) { return a.re == b.re && a.im == b.im; }
ASN_CB asn_clt(asn_complex<R> a, asn_complex<R> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
ASN_CB asn_cle(asn_complex<R> a, asn_complex<R> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
ASN_C asn_maximum(asn_complex<R> a, asn_complex<R> b) { return (asn_cle(b, a) || asn_isnan(a)) ? a : b; }
ASN_C asn_minimum(asn_complex<R> a, asn_complex<R> b) { return (asn_cle(a, b) || asn_isnan(a)) ? a : b; }
ASN_C asn_fmax(asn_complex<R> a, asn_complex<R> b) { return (asn_cle(b, a) || asn_isnan(b)) ? a : b; }
ASN_C asn_fmin(asn_complex<R> a, asn_complex<R> b) { return (asn_cle(a, b) || asn_isnan(b)) ? a : b; }
template <class R> __device__ __forceinline__ R asn_abs(asn_complex<R> z) { return asn_hypot(z.re, z.im); }
ASN_C asn_conj(asn_complex<R> z) { return asn_cpack(z.re, -z.im); }
ASN_C asn_rint(asn_complex<R> z) { return asn_cpack(asn_rint(z.re), asn_rint(z.im)); }
ASN_C asn_square(asn_complex<R> z) { return asn_cpack(z.re * z.re - z.im * z.im, z.re * z.im + z.im * z.re); }
ASN_C asn_reciprocal(asn_complex<R> z) {
    if (asn_fabs(z.im) <= asn_fabs(z.re)) {
        R r = z.im / z.re, d = z.re + z.im * r;
        return asn_cpack((R)1 / d, -r / d);
    }
    R r = z.re / z.im, d = z.re * r + z.im;
    return asn_cpack(r / d, (R)-1 / d);
}
/* NumPy 2: z / |z|, with its rules for zero, inf and NaN */
ASN_C asn_sign(asn_complex<R> z) {
    R a = asn_hypot(z.re, z.im), nan = a - a + (R)0 / (R)0;
    if (a != a) return asn_cpack(nan, nan);
    if (ASN_STD isinf(a)) {
        if (ASN_STD isinf(z.re)) {
            if (ASN_STD isinf(z.im)) return asn_cpack(nan, nan);
            return asn_cpack(z.re > 0 ? (R)1 : (R)-1, (R)0);
        }
        return asn_cpack((R)0, z.im > 0 ? (R)1 : (R)-1);
    }
    if (a == 0) return asn_cpack((R)0, (R)0);
    return asn_cpack(z.re / a, z.im / a);
}
/* principal square root; the halves are scaled so nothing overflows */
ASN_C asn_sqrt(asn_complex<R> z) {
    R x = z.re, y = z.im;
    if (x == 0 && y == 0) return asn_cpack((R)0, y);
    if (ASN_STD isinf(y)) return asn_cpack((R)1 / (R)0, y);
    if (x != x) return asn_cpack(x, x);
    if (ASN_STD isinf(x)) {
        if (x > 0) return asn_cpack(x, y != y ? y : asn_copysign((R)0, y));
        return asn_cpack(y != y ? y : (R)0, asn_copysign(-x, y));
    }
    R t = asn_sqrt((R)0.5 * asn_fabs(x) + (R)0.5 * asn_hypot(x, y));
    if (x >= 0) return asn_cpack(t, y / (2 * t));
    return asn_cpack(asn_fabs(y) / (2 * t), asn_copysign(t, y));
}
ASN_C asn_exp(asn_complex<R> z) {
    if (z.im == 0) return asn_cpack(asn_exp(z.re), z.im);
    if (ASN_STD isinf(z.re) && !ASN_STD isfinite(z.im)) {
        if (z.re < 0) return asn_cpack((R)0, (R)0);
        return asn_cpack(z.re, z.im - z.im);
    }
    R e = asn_exp(z.re);
    return asn_cpack(e * asn_cos(z.im), e * asn_sin(z.im));
}
ASN_C asn_log(asn_complex<R> z) {
    R a = asn_hypot(z.re, z.im), re;
    /* near |z| == 1 the real part is log1p of a small, exactly formed term */
    if (a > (R)0.5 && a < (R)2) re = (R)0.5 * asn_log1p((z.re - 1) * (z.re + 1) + z.im * z.im);
    else re = asn_log(a);
    return asn_cpack(re, asn_atan2(z.im, z.re));
}
ASN_C asn_exp2(asn_complex<R> z) { return asn_exp(asn_cscale(z, (R)0.693147180559945309417232121458176568)); }
ASN_C asn_log2(asn_complex<R> z) { return asn_cscale(asn_log(z), (R)1.442695040888963407359924681001892137); }
ASN_C asn_log10(asn_complex<R> z) { return asn_cscale(asn_log(z), (R)0.434294481903251827651128918916605082); }
ASN_C asn_expm1(asn_complex<R> z) {
    R s = asn_sin(z.im / 2);
    return asn_cpack(asn_expm1(z.re) * asn_cos(z.im) - 2 * s * s, asn_exp(z.re) * asn_sin(z.im));
}
ASN_C asn_log1p(asn_complex<R> z) {
    return asn_cpack(asn_log(asn_hypot(z.re + 1, z.im)), asn_atan2(z.im, z.re + 1));
}
ASN_C asn_sinh(asn_complex<R> z) {
    return asn_cpack(asn_sinh(z.re) * asn_cos(z.im), asn_cosh(z.re) * asn_sin(z.im));
}
ASN_C asn_cosh(asn_complex<R> z) {
    return asn_cpack(asn_cosh(z.re) * asn_cos(z.im), asn_sinh(z.re) * asn_sin(z.im));
}
/* tanh(x+iy) = (s c + i t (1 + s^2)... ) in the overflow-free form
   t = tan y, s = sinh x, b = 1 + t^2, r = sqrt(1 + s^2): (b r s + i t) / (1 + b s^2) */
ASN_C asn_tanh(asn_complex<R> z) {
    R x = z.re, y = z.im;
    if (asn_fabs(x) > (R)(sizeof(R) == 4 ? 9 : 22)) {
        R e = asn_exp(-2 * asn_fabs(x));
        return asn_cpack(asn_copysign((R)1, x), 4 * asn_sin(y) * asn_cos(y) * e);
    }
    R t = asn_tan(y), s = asn_sinh(x), b = 1 + t * t, r = asn_sqrt(1 + s * s), d = 1 + b * s * s;
    return asn_cpack(b * r * s / d, t / d);
}
ASN_C asn_sin(asn_complex<R> z) { return asn_mul_negi(asn_sinh(asn_mul_i(z))); }
ASN_C asn_cos(asn_complex<R> z) { return asn_cosh(asn_mul_i(z)); }
ASN_C asn_tan(asn_complex<R> z) { return asn_mul_negi(asn_tanh(asn_mul_i(z))); }
/* inverse functions: Kahan's formulas ("Branch cuts for complex elementary
   functions"), built on real asinh/atan2 and the complex sqrt */
ASN_C asn_asin(asn_complex<R> z) {
    asn_complex<R> s1 = asn_sqrt(asn_cpack(1 - z.re, -z.im)), s2 = asn_sqrt(asn_cpack(1 + z.re, z.im));
    return asn_cpack(asn_atan2(z.re, s1.re * s2.re - s1.im * s2.im),
                     asn_asinh(s1.re * s2.im - s1.im * s2.re));
}
ASN_C asn_acos(asn_complex<R> z) {
    asn_complex<R> s1 = asn_sqrt(asn_cpack(1 - z.re, -z.im)), s2 = asn_sqrt(asn_cpack(1 + z.re, z.im));
    return asn_cpack(2 * asn_atan2(s1.re, s2.re), asn_asinh(s2.re * s1.im - s2.im * s1.re));
}
ASN_C asn_acosh(asn_complex<R> z) {
    asn_complex<R> s1 = asn_sqrt(asn_cpack(z.re - 1, z.im)), s2 = asn_sqrt(asn_cpack(z.re + 1, z.im));
    return asn_cpack(asn_asinh(s1.re * s2.re + s1.im * s2.im), 2 * asn_atan2(s1.im, s2.re));
}
ASN_C asn_asinh(asn_complex<R> z) { return asn_mul_negi(asn_asin(asn_mul_i(z))); }
/* atanh z = log((1+z)/(1-z)) / 2, real and imaginary parts formed separately */
ASN_C asn_atanh(asn_complex<R> z) {
    R x = z.re, y = z.im, ax = asn_fabs(x);
    R re = (R)0.25 * asn_log1p(4 * ax / ((1 - ax) * (1 - ax) + y * y));
    R im = (R)0.5 * asn_atan2(2 * y, (1 - x) * (1 + x) - y * y);
    return asn_cpack(asn_copysign(re, x), im);
}
ASN_C asn_atan(asn_complex<R> z) { return asn_mul_negi(asn_atanh(asn_mul_i(z))); }
/* NumPy's complex power: exact small integer powers by repeated squaring,
   a zero base by its rules, else exp(b log a) */
ASN_C asn_power(asn_complex<R> a, asn_complex<R> b) {
    const asn_complex<R> one = asn_cpack((R)1, (R)0);
    if (b.re == 0 && b.im == 0) return one;
    if (a.re == 0 && a.im == 0) {
        if (b.re > 0) return asn_cpack((R)0, (R)0);     /* NumPy 2: any b with b.re > 0 */
        R nan = (R)0 / (R)0;
        return asn_cpack(nan, nan);
    }
    if (b.im == 0 && b.re == asn_trunc(b.re) && asn_fabs(b.re) < 100) {
        long long n = (long long)b.re;
        if (n == 1) return a;
        if (n == 2) return a * a;
        if (n == 3) return a * (a * a);
        asn_complex<R> acc = one, p = a;
        long long m = n < 0 ? -n : n, mask = 1;
        while (true) {
            if (m & mask) acc = acc * p;
            mask <<= 1;
            if (m < mask) break;
            p = p * p;
        }
        return n < 0 ? one / acc : acc;
    }
    return asn_exp(asn_log(a) * b);
}
#undef ASN_C
#undef ASN_CB

/* ---- the rest of what user kernels' sources may use ------------------ */
/* min/max as CUDA overloads them: any two arithmetic types, usual promotions */
template <class A, class B> __device__ __forceinline__ auto min(A a, B b) -> decltype(a + b) {
    return b < a ? (decltype(a + b))b : (decltype(a + b))a;
}
template <class A, class B> __device__ __forceinline__ auto max(A a, B b) -> decltype(a + b) {
    return a < b ? (decltype(a + b))b : (decltype(a + b))a;
}

template <class T> __device__ __forceinline__ T real(const complex<T>& z) { return z.re; }
template <class T> __device__ __forceinline__ T imag(const complex<T>& z) { return z.im; }
template <class T> __device__ __forceinline__ complex<T> conj(const complex<T>& z) { return complex<T>(z.re, -z.im); }
template <class T> __device__ __forceinline__ T norm(const complex<T>& z) { return z.re * z.re + z.im * z.im; }
template <class T> __device__ __forceinline__ T abs(const complex<T>& z) { return ASN_STD hypot(z.re, z.im); }
template <class T> __device__ __forceinline__ T arg(const complex<T>& z) { return ASN_STD atan2(z.im, z.re); }
template <class T> __device__ __forceinline__ complex<T> exp(const complex<T>& z) {
    T m = ASN_STD exp(z.re);
    return complex<T>(m * ASN_STD cos(z.im), m * ASN_STD sin(z.im));
}
template <class T> __device__ __forceinline__ complex<T> log(const complex<T>& z) {
    return complex<T>(ASN_STD log(abs(z)), arg(z));
}
template <class T> __device__ __forceinline__ complex<T> sqrt(const complex<T>& z) {
    T m = abs(z);
    T r = ASN_STD sqrt((m + (z.re < 0 ? -z.re : z.re)) / 2);
    if (r == 0) return complex<T>(0, z.im);
    if (z.re >= 0) return complex<T>(r, z.im / (2 * r));
    return complex<T>((z.im < 0 ? -z.im : z.im) / (2 * r), z.im < 0 ? -r : r);
}
template <class T> __device__ __forceinline__ complex<T> polar(T m, T t = 0) {
    return complex<T>(m * ASN_STD cos(t), m * ASN_STD sin(t));
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
    __device__ __forceinline__ complex<T> operator op(const complex<T>& a, S b) { return a op complex<T>((T)(R)b); } \
    template <class T, class S, class R = typename asn_real_type<S>::type> \
    __device__ __forceinline__ complex<T> operator op(S a, const complex<T>& b) { return complex<T>((T)(R)a) op b; }
ASN_MIXED(+) ASN_MIXED(-) ASN_MIXED(*) ASN_MIXED(/)
#undef ASN_MIXED

/* raw array parameters: data, size, shape and strides (bytes), any layout */
template <class T, int N> struct CArray {
    T* data_;
    long long size_;
    long long shape_[N > 0 ? N : 1];
    long long strides_[N > 0 ? N : 1];
    __device__ __forceinline__ T* data() const { return data_; }
    __device__ __forceinline__ long long size() const { return size_; }
    __device__ __forceinline__ const long long* shape() const { return shape_; }
    __device__ __forceinline__ const long long* strides() const { return strides_; }
    /* element i in C order (CuPy's CArray::operator[](ptrdiff_t)) */
    __device__ __forceinline__ T& operator[](long long i) const {
        long long offset = 0;
        for (int d = N - 1; d >= 0; --d) {
            long long n = shape_[d] > 0 ? shape_[d] : 1;
            offset += (i % n) * strides_[d];
            i /= n;
        }
        return *(T*)((char*)data_ + offset);
    }
    /* element at a multi-index (N entries) */
    __device__ __forceinline__ T& operator[](const long long* index) const {
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
    __device__ __forceinline__ long long size() const { return size_; }
    __device__ __forceinline__ const long long* shape() const { return shape_; }
    __device__ __forceinline__ const long long* get() const { return index_; }
    __device__ __forceinline__ void set(long long i) {
        for (int d = N - 1; d >= 0; --d) {
            index_[d] = i % shape_[d];
            i /= shape_[d];
        }
    }
    /* the next index in C order (an odometer: no division) */
    __device__ __forceinline__ void next() {
        for (int d = N - 1; d >= 0; --d) {
            if (++index_[d] < shape_[d]) return;
            index_[d] = 0;
        }
    }
};
"""

# The host target's CUDA qualifiers, defined before the prelude (``__shared__``: one
# copy per block in flight).  The standard headers the prelude and the runtime use come
# first: libc++ (zig's clang, the [compiler] extra) asks ``__has_attribute(__noinline__)``
# in its configuration header, which a ``__noinline__`` macro defined before would break.
HOST_QUALIFIERS = r"""
#include <cmath>
#include <cstring>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <utility>
#include <type_traits>
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
"""

# For the host target, after the prelude: CUDA's builtins on the host (see the module
# docstring).
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
