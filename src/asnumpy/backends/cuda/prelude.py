"""The C++ prelude every generated cuda kernel starts with (see :mod:`.scalar_ops`).

It compiles under NVRTC (``__CUDACC_RTC__`` defined; half is cuda_fp16.h's
``__half``, so the include path must hold the CUDA runtime headers) and as
host C++17 under the test shim (half is ``_Float16``; ``<cmath>`` is
included).  Everything is defined from the math and NumPy's documented loop
semantics; nothing is vendored.
"""

PRELUDE = r"""
/* ---- asnumpy prelude: storage types ---------------------------------- */
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
#endif

template <class T> struct asn_complex { T re, im; };
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
"""
