/* The compiled call path of the cpu fast lane (docs/performance.md, "The compiled path").
 *
 * The pure-Python lanes (ufuncs/fast.py) are the reference: every object here
 * handles only the commonest case of one of them and hands every other call,
 * unchanged, to the Python callable it holds ("python"), which decides
 * everything else exactly as it does without this module.  In the case taken
 * here the work is the same single NumPy call the Python lane makes, on the
 * same cached NumPy views, so results are identical bit for bit.
 *
 * Objects:
 *   Lane      - a callable for one ufunc lane or operator form (kind x form).
 *   Shortcut  - a method: fast(self) when called with self alone, else slow(...).
 *   UfuncBase - the base class of asnumpy.ufunc: a call takes its lanes, else its
 *               general call.
 *   GetItem   - ndarray.__getitem__ for an int or a slice on the first axis.
 *   Field     - a read-fast data descriptor over one of ndarray's slots.
 *   Held      - a held Plan's repeated call on its planned operands (its lean call).
 *   PlanBase  - the base class of asnumpy.Plan: a call takes its Held, else the Python
 *               call.
 *   ArrayFields - the storage of ndarray's fields (its base class).
 *   NumpyCall - a function's small plain call (sort, argmax, mean, where, matmul) made
 *               by NumPy on the views.
 *   LaidOutKernel - a small fused cpu kernel laid out once (fusion/_run.py,
 *               SmallLaunch): fresh outputs, the views' data pointers and the
 *               scalars written into its value tables, its entries called.
 *   CheckedCall - a LaidOutKernel behind a check of the arguments' signature
 *               (Fusion.direct: asnumpy.fuse's and asnumpy.jit's repeated calls).
 *
 * ndarray is a Python class over ArrayFields (or, without this module, over a
 * class with the same __slots__): configure() reads the offsets of its fields
 * from their member descriptors and this module reads and writes the fields
 * there, as the descriptors themselves do.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
/* NumPy's C API, for the fields of a NumPy result (its size, strides, dtype) */
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

/* ---- configuration (set once by configure()) ---------------------------- */

enum { F_BUFFER, F_SHAPE, F_STRIDES, F_OFFSET, F_DTYPE, F_DEVICE, F_BASE, F_WRITEABLE,
       F_NATIVE, N_FIELDS };
static const char *FIELD_NAMES[N_FIELDS] = {"_buffer", "_shape", "_strides", "_offset",
                                            "_dtype", "_device", "_base", "_writeable",
                                            "_native"};
static Py_ssize_t field_offset[N_FIELDS];
static Py_ssize_t device_loops_offset, device_pool_offset;
static PyTypeObject *array_type, *numpy_type, *device_type;
static PyObject *numpy_asarray, *accounting_pools, *lane_globals, *numpy_dtypes;
static PyObject *zero, *str_split_min_work, *str_reduce_split_min, *str_pool_min_bytes,
    *str_standard_values, *str_axis_kw, *str_out_kw, *str_realize, *str_accounting;
static int configured = 0;

#define FIELD(o, f) (*(PyObject **)((char *)(o) + field_offset[f]))
#define AT(o, off) (*(PyObject **)((char *)(o) + (off)))

static Py_ssize_t
slot_offset(PyTypeObject *type, const char *name)
{
    PyObject *descr = PyObject_GetAttrString((PyObject *)type, name);   /* through the MRO */
    if (descr == NULL)
        return -1;
    Py_ssize_t offset = -1;
    if (!PyObject_TypeCheck(descr, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX)
        PyErr_Format(PyExc_TypeError, "asnumpy._compiled: %s.%s is not an object slot",
                     type->tp_name, name);
    else
        offset = ((PyMemberDescrObject *)descr)->d_member->offset;
    Py_DECREF(descr);
    return offset;
}

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *array, *numpy_array, *device, *asarray, *pools, *globals, *dtypes;
    if (!PyArg_ParseTuple(args, "O!O!O!OO!O!O:configure", &PyType_Type, &array, &PyType_Type,
                          &numpy_array, &PyType_Type, &device, &asarray, &PyList_Type, &pools,
                          &PyDict_Type, &globals, &dtypes))
        return NULL;
    for (int i = 0; i < N_FIELDS; i++) {
        Py_ssize_t offset = slot_offset((PyTypeObject *)array, FIELD_NAMES[i]);
        if (offset < 0)
            return NULL;
        field_offset[i] = offset;
    }
    if ((device_loops_offset = slot_offset((PyTypeObject *)device, "numpy_loops")) < 0 ||
        (device_pool_offset = slot_offset((PyTypeObject *)device, "memory_pool")) < 0)
        return NULL;
    Py_INCREF(array); Py_XSETREF(array_type, (PyTypeObject *)array);
    Py_INCREF(numpy_array); Py_XSETREF(numpy_type, (PyTypeObject *)numpy_array);
    Py_INCREF(device); Py_XSETREF(device_type, (PyTypeObject *)device);
    Py_INCREF(asarray); Py_XSETREF(numpy_asarray, asarray);
    Py_INCREF(pools); Py_XSETREF(accounting_pools, pools);
    Py_INCREF(globals); Py_XSETREF(lane_globals, globals);
    Py_INCREF(dtypes); Py_XSETREF(numpy_dtypes, dtypes);
    configured = 1;
    Py_RETURN_NONE;
}

/* ---- small helpers ------------------------------------------------------ */

/* A module global that is a Python int (a threshold of the loop kernels, fast.py's
 * POOL_MIN_BYTES), read at each call (tests and the calibration set them) as a C long
 * long; -1 when absent or not an int.  The last object read and its value are kept, so
 * an unchanged global costs one dict lookup. */
typedef struct {
    PyObject *value;      /* held: its address cannot be reused while it is kept */
    long long number;
} IntGlobal;

static long long
int_global(PyObject *owner, PyObject *name, IntGlobal *last)
{
    PyObject *dict = PyModule_CheckExact(owner) ? PyModule_GetDict(owner) : owner;
    PyObject *value = PyDict_CheckExact(dict) ? PyDict_GetItemWithError(dict, name) : NULL;
    if (value == NULL) {
        PyErr_Clear();
        return -1;
    }
    if (value == last->value)
        return last->number;
    long long number = PyLong_Check(value) ? PyLong_AsLongLong(value) : -1;
    if (number == -1)
        PyErr_Clear();
    Py_INCREF(value);
    Py_XSETREF(last->value, value);
    last->number = number;
    return number;
}

static int
is_weak_scalar(PyObject *x)
{
    PyTypeObject *t = Py_TYPE(x);
    return t == &PyLong_Type || t == &PyFloat_Type || t == &PyComplex_Type;
}

/* Whether the pool of ``device`` accounts for every array (fast.py: accounting_pools[0]
 * and device.memory_pool.accounting); -1 on error. */
static int
pool_accounts(PyObject *device)
{
    PyObject *count = PyList_GET_SIZE(accounting_pools) ? PyList_GET_ITEM(accounting_pools, 0)
                                                        : NULL;
    if (count == NULL || count == zero || !PyObject_IsTrue(count))
        return 0;
    PyObject *pool = AT(device, device_pool_offset);
    if (pool == NULL)
        return 1;
    PyObject *accounting = PyObject_GetAttr(pool, str_accounting);
    if (accounting == NULL)
        return -1;
    int result = PyObject_IsTrue(accounting);
    Py_DECREF(accounting);
    return result;
}

/* The strides of a NumPy array as a tuple: ``like`` itself when it holds the same
 * values (an operand's strides: the usual layout of a result), else a new one. */
static PyObject *
strides_of(PyArrayObject *native, PyObject *like)
{
    int ndim = PyArray_NDIM(native);
    npy_intp *strides = PyArray_STRIDES(native);
    if (like && PyTuple_CheckExact(like) && PyTuple_GET_SIZE(like) == ndim) {
        int same = 1;
        for (int i = 0; i < ndim && same; i++) {
            PyObject *item = PyTuple_GET_ITEM(like, i);
            same = PyLong_CheckExact(item) && PyLong_AsSsize_t(item) == strides[i];
        }
        if (same) {
            Py_INCREF(like);
            return like;
        }
        PyErr_Clear();
    }
    PyObject *made = PyTuple_New(ndim);
    if (made == NULL)
        return NULL;
    for (int i = 0; i < ndim; i++) {
        PyObject *item = PyLong_FromSsize_t(strides[i]);
        if (item == NULL) {
            Py_DECREF(made);
            return NULL;
        }
        PyTuple_SET_ITEM(made, i, item);
    }
    return made;
}

/* A new asnumpy array whose memory is ``native``, a fresh NumPy result of ``shape``
 * (ndarray._adopt_native with the pool not accounting); ``like``: strides it likely has.
 * Steals ``native``. */
static PyObject *
adopt(PyObject *native, PyObject *shape, PyObject *device, PyObject *like)
{
    if (Py_TYPE(native) != numpy_type) {            /* 0-d operands give a NumPy scalar */
        PyObject *array = PyArray_IsScalar(native, Generic) ? PyArray_FromScalar(native, NULL)
                                                            : PyObject_CallOneArg(numpy_asarray,
                                                                                  native);
        Py_DECREF(native);
        if (array == NULL)
            return NULL;
        native = array;
        if (Py_TYPE(native) != numpy_type) {
            Py_DECREF(native);
            PyErr_SetString(PyExc_TypeError, "asnumpy._compiled: numpy.asarray gave no array");
            return NULL;
        }
    }
    PyObject *strides = strides_of((PyArrayObject *)native, like);
    PyObject *made = strides ? array_type->tp_alloc(array_type, 0) : NULL;
    if (made == NULL) {
        Py_XDECREF(strides);
        Py_DECREF(native);
        return NULL;
    }
    PyObject *dtype = (PyObject *)PyArray_DESCR((PyArrayObject *)native);
    Py_INCREF(Py_None); FIELD(made, F_BUFFER) = Py_None;
    Py_INCREF(shape); FIELD(made, F_SHAPE) = shape;
    FIELD(made, F_STRIDES) = strides;
    Py_INCREF(zero); FIELD(made, F_OFFSET) = zero;
    Py_INCREF(dtype); FIELD(made, F_DTYPE) = dtype;
    Py_INCREF(device); FIELD(made, F_DEVICE) = device;
    Py_INCREF(Py_None); FIELD(made, F_BASE) = Py_None;
    Py_INCREF(Py_True); FIELD(made, F_WRITEABLE) = Py_True;
    FIELD(made, F_NATIVE) = native;
    return made;
}

/* The fields of an exact asnumpy array that the lanes read, or 0 when it is none
 * of the lanes' (a subclass, a field unset, no cached NumPy view, a device whose
 * kernels are not NumPy's loops). */
typedef struct {
    PyObject *shape, *dtype, *device, *native, *loops;
} Operand;

static int
read_operand(PyObject *x, Operand *o)
{
    if (Py_TYPE(x) != array_type)
        return 0;
    o->shape = FIELD(x, F_SHAPE);
    o->dtype = FIELD(x, F_DTYPE);
    o->device = FIELD(x, F_DEVICE);
    o->native = FIELD(x, F_NATIVE);
    if (o->shape == NULL || o->dtype == NULL || o->device == NULL || o->native == NULL ||
        Py_TYPE(o->native) != numpy_type || Py_TYPE(o->device) != device_type)
        return 0;
    o->loops = AT(o->device, device_loops_offset);
    return o->loops != NULL && o->loops != Py_None;
}

/* Whether two shapes (or strides: tuples of Python ints) are equal; small ints are
 * shared objects, so most items compare by identity. */
static int
same_shape(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (!PyTuple_CheckExact(a) || !PyTuple_CheckExact(b))
        return 0;
    Py_ssize_t n = PyTuple_GET_SIZE(a);
    if (PyTuple_GET_SIZE(b) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(a, i), *y = PyTuple_GET_ITEM(b, i);
        if (x == y)
            continue;
        if (!PyLong_CheckExact(x) || !PyLong_CheckExact(y))
            return 0;
        int equal = PyObject_RichCompareBool(x, y, Py_EQ);
        if (equal <= 0) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* Whether a pending exception is one of the two or three classes given (then cleared). */
static int
clear_if(PyObject *e1, PyObject *e2, PyObject *e3)
{
    PyObject *raised = PyErr_Occurred();
    if (raised && (PyErr_GivenExceptionMatches(raised, e1) ||
                   PyErr_GivenExceptionMatches(raised, e2) ||
                   (e3 && PyErr_GivenExceptionMatches(raised, e3)))) {
        PyErr_Clear();
        return 1;
    }
    return 0;
}

/* ---- Lane ---------------------------------------------------------------- */

/* What a lane (or a held call) knows of calling NumPy's inner loop itself (see
 * direct_call): per dtype, in ``known``, and for the dtype it saw last. */
typedef struct {
    PyObject *ufunc;               /* borrowed from the owner: the NumPy ufunc */
    PyObject *known;               /* dtype -> the index of its inner loop, or -1 */
    PyUFuncGenericFunction loop;
    void *data;
    PyArray_Descr *out;            /* borrowed: a built-in dtype, never freed */
    int state;                     /* 1: loop; 0: NumPy's call; -1: not yet known */
} DirectState;

enum { K_BINARY, K_BINARY_OUT, K_UNARY, K_UNARY_OUT, K_REDUCE };
enum { FORM_PLAIN, FORM_REFLECTED, FORM_INPLACE };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    int kind, form;
    PyObject *ufunc;      /* the NumPy ufunc (its reduce method for K_REDUCE) */
    PyObject *python;     /* the Python lane or operator: every call this one does not take */
    PyObject *cost_of;    /* cost_of(loops, key) -> (cost, result itemsize) */
    PyObject *refused;    /* fast._refused(error, out_view) */
    PyObject *gate;       /* a list: gate[0] raised -> python */
    PyObject *name;       /* K_REDUCE: the ufunc's kernel name (loops.STANDARD_VALUES) */
    PyObject *costs;      /* key -> (cost, itemsize) */
    /* the last key's entry (one pair of dtypes or a dtype and a scalar type) */
    PyObject *last_a, *last_b;
    long long last_cost, last_itemsize;
    DirectState direct;   /* and its inner loop, where the lane calls it itself */
} Lane;

static PyObject *
lane_python(Lane *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
}

/* (cost, result itemsize) of the loop for (ka, kb) (kb NULL: unary); 0 on error. */
static int
lane_entry(Lane *self, PyObject *loops, PyObject *ka, PyObject *kb, long long *cost,
           long long *itemsize)
{
    if (ka == self->last_a && kb == self->last_b) {
        *cost = self->last_cost;
        *itemsize = self->last_itemsize;
        return 1;
    }
    PyObject *key = kb ? PyTuple_Pack(2, ka, kb) : PyTuple_Pack(1, ka);
    if (key == NULL)
        return 0;
    PyObject *entry = PyDict_GetItemWithError(self->costs, key);     /* borrowed */
    if (entry == NULL) {
        if (PyErr_Occurred()) {
            Py_DECREF(key);
            return 0;
        }
        entry = PyObject_CallFunctionObjArgs(self->cost_of, loops, key, NULL);
        if (entry == NULL || PyDict_SetItem(self->costs, key, entry) < 0) {
            Py_XDECREF(entry);
            Py_DECREF(key);
            return 0;
        }
        Py_DECREF(entry);                      /* the dict holds it */
    }
    Py_DECREF(key);
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
        PyErr_SetString(PyExc_TypeError, "asnumpy._compiled: a lane's cost entry is no pair");
        return 0;
    }
    *cost = PyLong_AsLongLong(PyTuple_GET_ITEM(entry, 0));
    *itemsize = PyLong_AsLongLong(PyTuple_GET_ITEM(entry, 1));
    if (PyErr_Occurred())
        return 0;
    Py_INCREF(ka);
    Py_XSETREF(self->last_a, ka);
    Py_XINCREF(kb);
    Py_XSETREF(self->last_b, kb);
    self->last_cost = *cost;
    self->last_itemsize = *itemsize;
    self->direct.state = -1;
    return 1;
}

/* ---- direct calls of NumPy's inner loop -------------------------------------
 *
 * For operands that are C-contiguous, aligned NumPy views of one built-in dtype,
 * whose loop NumPy resolves without casting, NumPy's call allocates a C-contiguous
 * result and runs the ufunc's inner loop once over all the elements.  A lane may do
 * exactly that itself, skipping NumPy's dispatch (most of a small call's time).  The
 * loop is the ufunc's own entry for those dtypes (its `types` table), and before a
 * lane trusts it for a pair of dtypes it runs both and compares the results byte for
 * byte (once per lane and dtypes: a table entry NumPy does not use is never taken).
 * A loop that sets a floating-point flag or a Python error has its result discarded,
 * and NumPy's own call computes it again (the output is fresh: nothing else saw it)
 * and applies numpy.errstate. */

/* The index of ``ufunc``'s loop for inputs of ``descr`` (all ``nin`` of them) that
 * NumPy resolves without casting, or -1. */
static int
loop_index(PyUFuncObject *ufunc, PyArray_Descr *descr, PyArray_Descr **out)
{
    int nin = ufunc->nin, nargs = ufunc->nargs;
    if (ufunc->nout != 1 || nin < 1 || nin > 2 || ufunc->core_enabled ||
        descr->type_num >= NPY_NTYPES_LEGACY || descr->type_num == NPY_OBJECT ||
        !PyArray_ISNBO(descr->byteorder) || ufunc->types == NULL || ufunc->functions == NULL)
        return -1;
    for (int i = 0; i < ufunc->ntypes; i++) {
        const char *types = ufunc->types + i * nargs;
        int match = 1;
        for (int j = 0; j < nin && match; j++)
            match = types[j] == descr->type_num;
        if (match) {
            if (ufunc->functions[i] == NULL || types[nin] >= NPY_NTYPES_LEGACY ||
                types[nin] == NPY_OBJECT)
                return -1;
            *out = PyArray_DescrFromType(types[nin]);
            if (*out == NULL) {
                PyErr_Clear();
                return -1;
            }
            Py_DECREF(*out);                 /* (a built-in dtype: the table keeps it) */
            return i;
        }
    }
    return -1;
}

/* ufunc's loop over the ``nin`` views into a new C-contiguous result, or NULL (no error
 * set) when the loop raised a floating-point flag or an error: NumPy's call then. */
static PyObject *
run_loop(PyUFuncGenericFunction loop, void *data, PyArray_Descr *out_descr,
         PyArrayObject **inputs, int nin)
{
    PyArrayObject *first = inputs[0];
    Py_INCREF(out_descr);
    PyObject *result = PyArray_NewFromDescr(&PyArray_Type, out_descr, PyArray_NDIM(first),
                                            PyArray_DIMS(first), NULL, NULL, 0, NULL);
    if (result == NULL)
        return NULL;
    char *pointers[3];
    npy_intp steps[3], count = PyArray_SIZE(first);
    for (int i = 0; i < nin; i++) {
        pointers[i] = PyArray_BYTES(inputs[i]);
        steps[i] = PyArray_ITEMSIZE(inputs[i]);
    }
    pointers[nin] = PyArray_BYTES((PyArrayObject *)result);
    steps[nin] = out_descr->elsize;
    PyUFunc_clearfperr();
    loop(pointers, &count, steps, data);
    if (PyErr_Occurred() || PyUFunc_getfperr()) {
        PyErr_Clear();
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

/* The lane's direct call on ``nin`` NumPy views of one dtype (see above): its result,
 * or NULL with no error set for NumPy's own call, or NULL with NumPy's error. */
static PyObject *
direct_call(DirectState *self, PyObject **natives, int nin)
{
    if (self->state == 0 || self->ufunc == NULL || !PyObject_TypeCheck(self->ufunc,
                                                                      &PyUFunc_Type))
        return NULL;
    PyArrayObject *inputs[2];
    for (int i = 0; i < nin; i++) {
        inputs[i] = (PyArrayObject *)natives[i];
        int flags = PyArray_FLAGS(inputs[i]);
        if (!(flags & NPY_ARRAY_C_CONTIGUOUS) || !(flags & NPY_ARRAY_ALIGNED) ||
            PyArray_DESCR(inputs[i]) != PyArray_DESCR(inputs[0]) ||
            PyArray_NDIM(inputs[i]) != PyArray_NDIM(inputs[0]))
            return NULL;
    }
    if (PyArray_NDIM(inputs[0]) < 1 || PyArray_SIZE(inputs[0]) < 1)
        return NULL;
    PyUFuncObject *ufunc = (PyUFuncObject *)self->ufunc;
    if (self->state == -1) {             /* first use for these dtypes: find, check */
        PyObject *key = (PyObject *)PyArray_DESCR(inputs[0]);
        PyObject *known = PyDict_GetItemWithError(self->known, key);
        if (known == NULL && PyErr_Occurred()) {
            PyErr_Clear();
            return NULL;
        }
        PyArray_Descr *out = NULL;
        long index = known ? PyLong_AsLong(known) : loop_index(ufunc, PyArray_DESCR(inputs[0]),
                                                                &out);
        if (index >= 0 && out == NULL)
            loop_index(ufunc, PyArray_DESCR(inputs[0]), &out);
        if (index < 0 || out == NULL) {
            self->state = 0;
            if (!known) {
                PyObject *minus = PyLong_FromLong(-1);
                if (minus == NULL || PyDict_SetItem(self->known, key, minus) < 0)
                    PyErr_Clear();
                Py_XDECREF(minus);
            }
            return NULL;
        }
        PyUFuncGenericFunction loop = ufunc->functions[index];
        void *data = ufunc->data ? ufunc->data[index] : NULL;
        if (!known) {                           /* the check: NumPy's call, the loop's */
            PyObject *mine = run_loop(loop, data, out, inputs, nin);
            if (mine == NULL)
                return NULL;                    /* (flags raised: decided another time) */
            PyObject *theirs = PyObject_Vectorcall(self->ufunc, natives, nin, NULL);
            if (theirs == NULL) {                /* (NumPy's error: the caller's) */
                Py_DECREF(mine);
                return NULL;
            }
            int same = Py_TYPE(theirs) == numpy_type &&
                PyArray_DESCR((PyArrayObject *)theirs) == out &&
                PyArray_NBYTES((PyArrayObject *)theirs) == PyArray_NBYTES(
                    (PyArrayObject *)mine) &&
                PyArray_IS_C_CONTIGUOUS((PyArrayObject *)theirs) &&
                memcmp(PyArray_BYTES((PyArrayObject *)theirs), PyArray_BYTES(
                    (PyArrayObject *)mine), PyArray_NBYTES((PyArrayObject *)mine)) == 0;
            Py_DECREF(mine);
            PyObject *value = PyLong_FromLong(same ? index : -1);
            if (value == NULL || PyDict_SetItem(self->known, key, value) < 0)
                PyErr_Clear();
            Py_XDECREF(value);
            self->state = same;
            if (same) {
                self->loop = loop;
                self->data = data;
                self->out = out;
            }
            return theirs;                      /* NumPy's own result, this time */
        }
        self->state = 1;
        self->loop = loop;
        self->data = data;
        self->out = out;
    }
    return run_loop(self->loop, self->data, self->out, inputs, nin);
}

/* 1: under the thread split (and, without out=, the pool's size); 0: not; -1: error */
static int
lane_fits(PyObject *loops, Py_ssize_t size, long long cost, long long itemsize, int fresh,
          PyObject *device)
{
    if (!cost)
        return 0;
    static IntGlobal last_split;
    long long split = int_global(loops, str_split_min_work, &last_split);
    if (split < 0 || (double)size * (double)cost >= (double)split)
        return 0;
    if (fresh) {
        static IntGlobal last_pool_min;
        long long pool_min = int_global(lane_globals, str_pool_min_bytes, &last_pool_min);
        if (pool_min < 0 || (double)size * (double)itemsize >= (double)pool_min)
            return 0;
        int accounts = pool_accounts(device);
        if (accounts)
            return accounts < 0 ? -1 : 0;
    }
    return 1;
}

/* After NumPy raised on an ``out=`` call: refused before its loop (TypeError,
 * OverflowError, or the ValueError of a read-only out: fast._refused decides) hands
 * the call to the Python lane; any other error (the loop's own) is raised as it is. */
static PyObject *
out_call_failed(Lane *self, PyObject *out_native, PyObject *const *args, size_t nargsf,
                PyObject *kwnames)
{
    if (clear_if(PyExc_TypeError, PyExc_OverflowError, NULL))
        return lane_python(self, args, nargsf, kwnames);
    if (!PyErr_ExceptionMatches(PyExc_ValueError))
        return NULL;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback)
        PyException_SetTraceback(value, traceback);
    PyObject *answer = PyObject_CallFunctionObjArgs(self->refused, value, out_native, NULL);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    if (answer == NULL)
        return NULL;
    Py_DECREF(answer);
    return lane_python(self, args, nargsf, kwnames);
}

/* A binary lane: two asnumpy arrays of one shape and device, or one array and a
 * Python int/float/complex; with ``out`` (K_BINARY_OUT) an asnumpy array of that shape. */
static PyObject *
lane_binary(Lane *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int with_out = self->kind == K_BINARY_OUT;
    if (kwnames || nargs != 2 + (with_out && self->form != FORM_INPLACE))
        return lane_python(self, args, nargsf, kwnames);
    PyObject *a = args[0], *b = args[1], *out = NULL;
    if (self->form == FORM_REFLECTED) {
        a = args[1];
        b = args[0];
    }
    else if (self->form == FORM_INPLACE)
        out = args[0];
    else if (with_out)
        out = args[2];
    PyObject *gate = PyList_GET_SIZE(self->gate) ? PyList_GET_ITEM(self->gate, 0) : NULL;
    if (gate == NULL || gate != zero)
        return lane_python(self, args, nargsf, kwnames);
    Operand x, y, o;
    PyObject *ka, *kb, *an, *bn, *shape, *device, *loops, *like;
    Py_ssize_t size;
    if (read_operand(a, &x)) {
        if (read_operand(b, &y)) {
            if (y.device != x.device || !same_shape(x.shape, y.shape))
                return lane_python(self, args, nargsf, kwnames);
            kb = y.dtype;
            bn = y.native;
        }
        else if (is_weak_scalar(b)) {
            kb = (PyObject *)Py_TYPE(b);
            bn = b;
        }
        else
            return lane_python(self, args, nargsf, kwnames);
        ka = x.dtype;
        an = x.native;
        shape = x.shape;
        device = x.device;
        loops = x.loops;
        size = PyArray_SIZE((PyArrayObject *)an);
        like = FIELD(a, F_STRIDES);
    }
    else if (is_weak_scalar(a) && read_operand(b, &y)) {
        ka = (PyObject *)Py_TYPE(a);
        an = a;
        kb = y.dtype;
        bn = y.native;
        shape = y.shape;
        device = y.device;
        loops = y.loops;
        size = PyArray_SIZE((PyArrayObject *)bn);
        like = FIELD(b, F_STRIDES);
    }
    else
        return lane_python(self, args, nargsf, kwnames);
    if (out && (!read_operand(out, &o) || o.device != device || FIELD(out, F_WRITEABLE) !=
                Py_True || !same_shape(o.shape, shape)))
        return lane_python(self, args, nargsf, kwnames);
    long long cost, itemsize;
    if (!lane_entry(self, loops, ka, kb, &cost, &itemsize))
        return NULL;
    int fits = lane_fits(loops, size, cost, itemsize, out == NULL, device);
    if (fits <= 0)
        return fits < 0 ? NULL : lane_python(self, args, nargsf, kwnames);
    if (out == NULL) {
        PyObject *operands[2] = {an, bn};
        PyObject *result = ka == kb ? direct_call(&self->direct, operands, 2) : NULL;
        if (result != NULL)
            return adopt(result, shape, device, like);
        if (PyErr_Occurred())
            return NULL;
        result = PyObject_Vectorcall(self->ufunc, operands, 2, NULL);
        if (result == NULL) {
            /* refused before NumPy's loop wrote anything: the Python lane decides */
            if (clear_if(PyExc_TypeError, PyExc_OverflowError, NULL))
                return lane_python(self, args, nargsf, kwnames);
            return NULL;
        }
        return adopt(result, shape, device, like);
    }
    PyObject *operands[3] = {an, bn, o.native};
    PyObject *result = PyObject_Vectorcall(self->ufunc, operands, 2, str_out_kw);
    if (result == NULL)
        return out_call_failed(self, o.native, args, nargsf, kwnames);
    Py_DECREF(result);
    Py_INCREF(out);
    return out;
}

/* A unary lane: one asnumpy array (and with K_UNARY_OUT an out of its shape and device). */
static PyObject *
lane_unary(Lane *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int with_out = self->kind == K_UNARY_OUT;
    if (kwnames || nargs != 1 + with_out)
        return lane_python(self, args, nargsf, kwnames);
    PyObject *a = args[0], *out = with_out ? args[1] : NULL;
    PyObject *gate = PyList_GET_SIZE(self->gate) ? PyList_GET_ITEM(self->gate, 0) : NULL;
    Operand x, o;
    if (gate != zero || !read_operand(a, &x))
        return lane_python(self, args, nargsf, kwnames);
    if (out && (!read_operand(out, &o) || o.device != x.device ||
                FIELD(out, F_WRITEABLE) != Py_True || !same_shape(o.shape, x.shape)))
        return lane_python(self, args, nargsf, kwnames);
    long long cost, itemsize;
    if (!lane_entry(self, x.loops, x.dtype, NULL, &cost, &itemsize))
        return NULL;
    Py_ssize_t size = PyArray_SIZE((PyArrayObject *)x.native);
    int fits = lane_fits(x.loops, size, cost, itemsize, out == NULL, x.device);
    if (fits <= 0)
        return fits < 0 ? NULL : lane_python(self, args, nargsf, kwnames);
    PyObject *operands[2] = {x.native, out ? o.native : NULL};
    PyObject *result = out ? NULL : direct_call(&self->direct, operands, 1);
    if (result != NULL)
        return adopt(result, x.shape, x.device, FIELD(a, F_STRIDES));
    if (PyErr_Occurred())
        return NULL;
    result = PyObject_Vectorcall(self->ufunc, operands, 1, out ? str_out_kw : NULL);
    if (result == NULL) {
        if (out != NULL)
            return out_call_failed(self, o.native, args, nargsf, kwnames);
        if (clear_if(PyExc_TypeError, PyExc_OverflowError, NULL))
            return lane_python(self, args, nargsf, kwnames);
        return NULL;
    }
    if (out == NULL)
        return adopt(result, x.shape, x.device, FIELD(a, F_STRIDES));
    Py_DECREF(result);
    Py_INCREF(out);
    return out;
}

/* ufunc.reduce over all of one asnumpy array with NumPy's defaults (a.sum()). */
static PyObject *
lane_reduce(Lane *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (kwnames || PyVectorcall_NARGS(nargsf) != 1)
        return lane_python(self, args, nargsf, kwnames);
    PyObject *gate = PyList_GET_SIZE(self->gate) ? PyList_GET_ITEM(self->gate, 0) : NULL;
    Operand x;
    if (gate != zero || !read_operand(args[0], &x))
        return lane_python(self, args, nargsf, kwnames);
    int known = PySet_Contains(numpy_dtypes, x.dtype);
    if (known <= 0) {
        PyErr_Clear();
        return lane_python(self, args, nargsf, kwnames);
    }
    PyObject *standard = PyObject_GetAttr(x.loops, str_standard_values);
    int special = standard ? PySequence_Contains(standard, self->name) : -1;
    Py_XDECREF(standard);
    static IntGlobal last_reduce_split;
    long long split = int_global(x.loops, str_reduce_split_min, &last_reduce_split);
    Py_ssize_t size = PyArray_SIZE((PyArrayObject *)x.native);
    if (special != 0 || split < 0 || size < 0 || size >= split) {
        PyErr_Clear();
        return lane_python(self, args, nargsf, kwnames);
    }
    int accounts = pool_accounts(x.device);
    if (accounts)
        return accounts < 0 ? NULL : lane_python(self, args, nargsf, kwnames);
    PyObject *operands[2] = {x.native, Py_None};
    PyObject *result = PyObject_Vectorcall(self->ufunc, operands, 1, str_axis_kw);
    if (result == NULL) {
        /* an empty maximum, ...: the Python lane's general path raises asnumpy's error */
        if (clear_if(PyExc_TypeError, PyExc_ValueError, PyExc_OverflowError))
            return lane_python(self, args, nargsf, kwnames);
        return NULL;
    }
    static PyObject *empty = NULL;
    if (empty == NULL && (empty = PyTuple_New(0)) == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    return adopt(result, empty, x.device, NULL);
}

static PyObject *
lane_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Lane *self = (Lane *)op;
    switch (self->kind) {
    case K_BINARY:
    case K_BINARY_OUT:
        return lane_binary(self, args, nargsf, kwnames);
    case K_UNARY:
    case K_UNARY_OUT:
        return lane_unary(self, args, nargsf, kwnames);
    default:
        return lane_reduce(self, args, nargsf, kwnames);
    }
}

static PyObject *
lane_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"kind", "form", "ufunc", "python", "cost_of", "refused", "gate",
                               "name", NULL};
    int kind, form;
    PyObject *ufunc, *python, *cost_of, *refused, *gate, *name = Py_None;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "asnumpy._compiled: configure() first");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iiOOOOO!|O:Lane", keywords, &kind, &form,
                                     &ufunc, &python, &cost_of, &refused, &PyList_Type, &gate,
                                     &name))
        return NULL;
    if (kind < K_BINARY || kind > K_REDUCE || form < FORM_PLAIN || form > FORM_INPLACE) {
        PyErr_Format(PyExc_ValueError, "asnumpy._compiled.Lane: no lane of kind %d, form %d",
                     kind, form);
        return NULL;
    }
    Lane *self = (Lane *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = lane_vectorcall;
    self->kind = kind;
    self->form = form;
    Py_INCREF(ufunc); self->ufunc = ufunc;
    Py_INCREF(python); self->python = python;
    Py_INCREF(cost_of); self->cost_of = cost_of;
    Py_INCREF(refused); self->refused = refused;
    Py_INCREF(gate); self->gate = gate;
    Py_INCREF(name); self->name = name;
    self->direct.state = -1;
    self->direct.ufunc = self->ufunc;
    if ((self->costs = PyDict_New()) == NULL || (self->direct.known = PyDict_New()) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int
lane_traverse(Lane *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->ufunc);
    Py_VISIT(self->python);
    Py_VISIT(self->cost_of);
    Py_VISIT(self->refused);
    Py_VISIT(self->gate);
    Py_VISIT(self->name);
    Py_VISIT(self->costs);
    Py_VISIT(self->direct.known);
    Py_VISIT(self->last_a);
    Py_VISIT(self->last_b);
    return 0;
}

static int
lane_clear(Lane *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->ufunc);
    Py_CLEAR(self->python);
    Py_CLEAR(self->cost_of);
    Py_CLEAR(self->refused);
    Py_CLEAR(self->gate);
    Py_CLEAR(self->name);
    Py_CLEAR(self->costs);
    Py_CLEAR(self->direct.known);
    Py_CLEAR(self->last_a);
    Py_CLEAR(self->last_b);
    return 0;
}

static void
generic_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_TYPE(self)->tp_clear(self);
    Py_TYPE(self)->tp_free(self);
}

/* Bound as a method when read from an instance (an operator on ndarray). */
static PyObject *
bind_method(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyMemberDef lane_members[] = {
    {"python", T_OBJECT, offsetof(Lane, python), READONLY,
     "The Python lane or operator this one hands every call it does not take."},
    {"kind", T_INT, offsetof(Lane, kind), READONLY, NULL},
    {"form", T_INT, offsetof(Lane, form), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(Lane, dict), READONLY},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Lane, vectorcall), READONLY},
    {NULL},
};

static PyTypeObject Lane_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.Lane",
    .tp_basicsize = sizeof(Lane),
    .tp_dealloc = generic_dealloc,
    .tp_vectorcall_offset = offsetof(Lane, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A fast lane's compiled common case; every other call goes to its Python lane.",
    .tp_traverse = (traverseproc)lane_traverse,
    .tp_clear = (inquiry)lane_clear,
    .tp_members = lane_members,
    .tp_descr_get = bind_method,
    .tp_dictoffset = offsetof(Lane, dict),
    .tp_new = lane_new,
};

/* ---- Shortcut: a method whose argument-free call tries fast(self) first ---- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *fast, *slow;
} Shortcut;

static PyObject *
shortcut_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Shortcut *self = (Shortcut *)op;
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == 1) {
        PyObject *result = PyObject_Vectorcall(self->fast, args, 1, NULL);
        if (result != Py_None)
            return result;
        Py_DECREF(result);
    }
    return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
}

static PyObject *
shortcut_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"fast", "slow", NULL};
    PyObject *fast, *slow;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Shortcut", keywords, &fast, &slow))
        return NULL;
    Shortcut *self = (Shortcut *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = shortcut_vectorcall;
    Py_INCREF(fast); self->fast = fast;
    Py_INCREF(slow); self->slow = slow;
    return (PyObject *)self;
}

static int
shortcut_traverse(Shortcut *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->fast);
    Py_VISIT(self->slow);
    return 0;
}

static int
shortcut_clear(Shortcut *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->fast);
    Py_CLEAR(self->slow);
    return 0;
}

static PyMemberDef shortcut_members[] = {
    {"fast", T_OBJECT, offsetof(Shortcut, fast), READONLY, "Tried first, on self alone."},
    {"slow", T_OBJECT, offsetof(Shortcut, slow), READONLY, "The method itself."},
    {"__dictoffset__", T_PYSSIZET, offsetof(Shortcut, dict), READONLY},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Shortcut, vectorcall), READONLY},
    {NULL},
};

static PyTypeObject Shortcut_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.Shortcut",
    .tp_basicsize = sizeof(Shortcut),
    .tp_dealloc = generic_dealloc,
    .tp_vectorcall_offset = offsetof(Shortcut, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A method: fast(self) first when called with self alone (None: the method).",
    .tp_traverse = (traverseproc)shortcut_traverse,
    .tp_clear = (inquiry)shortcut_clear,
    .tp_members = shortcut_members,
    .tp_descr_get = bind_method,
    .tp_dictoffset = offsetof(Shortcut, dict),
    .tp_new = shortcut_new,
};

/* ---- UfuncBase: the base class of asnumpy.ufunc (its __call__) -------------- */

/* The lanes live in the struct (the Python class sets them: ``self._lane = ...``), so
 * a call reads them without an attribute lookup, and the call itself is this type's
 * tp_call, which the Python subclass inherits (it defines no __call__). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *lane, *lane_out, *nin;
} UfuncBase;

static PyObject *str_call_general;

/* The general call: ufunc._call_general(args, kwargs) (planning, broadcasting, ...). */
static PyObject *
ufunc_general(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *positional = PyTuple_New(nargs), *kwargs = positional ? PyDict_New() : NULL;
    PyObject *general = kwargs ? PyObject_GetAttr(op, str_call_general) : NULL, *result = NULL;
    if (general != NULL) {
        for (Py_ssize_t i = 0; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(positional, i, args[i]);
        }
        Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, i = 0;
        for (; i < nkw; i++)
            if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
                break;
        if (i == nkw)
            result = PyObject_CallFunctionObjArgs(general, positional, kwargs, NULL);
    }
    Py_XDECREF(positional);
    Py_XDECREF(kwargs);
    Py_XDECREF(general);
    return result;
}

static PyObject *
ufunc_base_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    UfuncBase *self = (UfuncBase *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t nin = self->nin && PyLong_CheckExact(self->nin) ? PyLong_AsSsize_t(self->nin)
                                                              : -1;
    PyObject *out = NULL, *lane = NULL;
    if (nkw == 0)
        lane = self->lane;
    else if (nkw == 1 && PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0),
                                           PyTuple_GET_ITEM(str_out_kw, 0)) == 0) {
        lane = self->lane_out;
        out = args[nargs];
    }
    if (PyErr_Occurred())
        return NULL;
    if (lane && lane != Py_None && nin == nargs && nin >= 1 && nin <= 2) {
        PyObject *operands[3] = {args[0], nin > 1 ? args[1] : NULL, NULL};
        if (out) {
            if (PyTuple_CheckExact(out) && PyTuple_GET_SIZE(out) == 1)
                out = PyTuple_GET_ITEM(out, 0);
            operands[nin] = out;
        }
        PyObject *result = PyObject_Vectorcall(lane, operands, nin + (out ? 1 : 0), NULL);
        if (result != Py_None)
            return result;
        Py_DECREF(result);
    }
    return ufunc_general(op, args, nargs, kwnames);
}

/* A call with a tuple and a dict (PyObject_Call): the vectorcall above. */
static PyObject *
ufunc_base_call(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(op, args, kwargs);
}

static PyObject *
ufunc_base_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    UfuncBase *self = (UfuncBase *)type->tp_alloc(type, 0);
    if (self != NULL)
        self->vectorcall = ufunc_base_vectorcall;
    return (PyObject *)self;
}

static int
ufunc_base_traverse(UfuncBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->lane);
    Py_VISIT(self->lane_out);
    Py_VISIT(self->nin);
    return 0;
}

static int
ufunc_base_clear(UfuncBase *self)
{
    Py_CLEAR(self->lane);
    Py_CLEAR(self->lane_out);
    Py_CLEAR(self->nin);
    return 0;
}

static void
ufunc_base_dealloc(PyObject *op)
{
    PyObject_GC_UnTrack(op);
    ufunc_base_clear((UfuncBase *)op);
    Py_TYPE(op)->tp_free(op);
}

static PyMemberDef ufunc_base_members[] = {
    {"_lane", T_OBJECT, offsetof(UfuncBase, lane), 0, "The fast lane of plain calls."},
    {"_lane_out", T_OBJECT, offsetof(UfuncBase, lane_out), 0, "The fast lane of out= calls."},
    {"nin", T_OBJECT, offsetof(UfuncBase, nin), 0, "The number of inputs."},
    {NULL},
};

static PyTypeObject UfuncBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.UfuncBase",
    .tp_basicsize = sizeof(UfuncBase),
    .tp_dealloc = ufunc_base_dealloc,
    .tp_vectorcall_offset = offsetof(UfuncBase, vectorcall),
    .tp_call = ufunc_base_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "The base class of asnumpy.ufunc: a call takes the fast lanes first (a call "
              "without keywords but out=), then the ufunc's general call.",
    .tp_traverse = (traverseproc)ufunc_base_traverse,
    .tp_clear = (inquiry)ufunc_base_clear,
    .tp_members = ufunc_base_members,
    .tp_new = ufunc_base_new,
};

/* ---- GetItem: a[i] and a[i:j:k] on the first axis -------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *python;     /* ndarray.__getitem__ in Python: every other key */
} GetItem;

/* NumPy's view native[start::step] of ``length`` elements along the first axis (what
 * native[key] gives for a slice, made without NumPy's index parsing): a view inside
 * native's own layout, sharing its memory, flags and base. */
static PyObject *
slice_native(PyObject *native, Py_ssize_t start, Py_ssize_t length, Py_ssize_t step)
{
    PyArrayObject *parent = (PyArrayObject *)native;
    int ndim = PyArray_NDIM(parent);
    if (Py_TYPE(native) != numpy_type || ndim < 1 || ndim > NPY_MAXDIMS)
        return PyErr_Format(PyExc_TypeError, "asnumpy._compiled: no NumPy view to slice");
    npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    for (int i = 0; i < ndim; i++) {
        dims[i] = PyArray_DIMS(parent)[i];
        strides[i] = PyArray_STRIDES(parent)[i];
    }
    char *data = PyArray_BYTES(parent) + (length ? start * strides[0] : 0);
    dims[0] = length;
    strides[0] = length ? strides[0] * step : strides[0];
    PyArray_Descr *descr = PyArray_DESCR(parent);
    Py_INCREF(descr);                                   /* (stolen by the constructor) */
    int flags = PyArray_FLAGS(parent) & NPY_ARRAY_WRITEABLE;
    PyObject *view = PyArray_NewFromDescr(&PyArray_Type, descr, ndim, dims, strides, data,
                                          flags, NULL);
    if (view == NULL)
        return NULL;
    Py_INCREF(native);
    if (PyArray_SetBaseObject((PyArrayObject *)view, native) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    return view;
}

static PyObject *
getitem_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    GetItem *self = (GetItem *)op;
    if (kwnames || PyVectorcall_NARGS(nargsf) != 2 || Py_TYPE(args[0]) != array_type)
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    PyObject *array = args[0], *key = args[1];
    PyObject *shape = FIELD(array, F_SHAPE), *strides = FIELD(array, F_STRIDES);
    PyObject *offset_object = FIELD(array, F_OFFSET), *native = FIELD(array, F_NATIVE);
    PyObject *buffer = FIELD(array, F_BUFFER);
    int is_int = PyLong_CheckExact(key), is_slice = PySlice_Check(key);
    if (!(is_int || is_slice) || shape == NULL || strides == NULL || offset_object == NULL ||
        native == NULL || buffer == NULL || !PyTuple_CheckExact(shape) ||
        !PyTuple_CheckExact(strides) || PyTuple_GET_SIZE(shape) == 0 ||
        PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape) || !PyLong_CheckExact(offset_object))
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 0));
    Py_ssize_t stride = PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, 0));
    Py_ssize_t offset = PyLong_AsSsize_t(offset_object);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    }
    for (Py_ssize_t i = 1; i < ndim; i++)            /* no empty axis (Python's path) */
        if (PyTuple_GET_ITEM(shape, i) == zero || PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i))
            == 0)
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    if (n == 0 || PyErr_Occurred()) {
        PyErr_Clear();
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    }
    PyObject *new_shape, *new_strides, *view_native = Py_None;
    if (is_int) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(key, &overflow);
        if (overflow || i < -(long long)n || i >= (long long)n)
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);  /* its IndexError */
        if (i < 0)
            i += n;
        offset += (Py_ssize_t)i * stride;
        new_shape = PyTuple_GetSlice(shape, 1, ndim);
        new_strides = PyTuple_GetSlice(strides, 1, ndim);
        Py_INCREF(Py_None);
    }
    else {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) {
            PyErr_Clear();                              /* a zero step, a bad bound: Python's */
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
        }
        Py_ssize_t length = PySlice_AdjustIndices(n, &start, &stop, step);
        if (length)
            offset += start * stride;
        PyObject *first = PyLong_FromSsize_t(length);
        PyObject *first_stride = PyLong_FromSsize_t(length ? stride * step : stride);
        new_shape = first ? PyTuple_New(ndim) : NULL;
        new_strides = first_stride ? PyTuple_New(ndim) : NULL;
        if (new_shape == NULL || new_strides == NULL) {
            Py_XDECREF(first);
            Py_XDECREF(first_stride);
            Py_XDECREF(new_shape);
            Py_XDECREF(new_strides);
            return NULL;
        }
        PyTuple_SET_ITEM(new_shape, 0, first);
        PyTuple_SET_ITEM(new_strides, 0, first_stride);
        for (Py_ssize_t i = 1; i < ndim; i++) {
            PyObject *length_i = PyTuple_GET_ITEM(shape, i), *stride_i = PyTuple_GET_ITEM(
                strides, i);
            Py_INCREF(length_i);
            Py_INCREF(stride_i);
            PyTuple_SET_ITEM(new_shape, i, length_i);
            PyTuple_SET_ITEM(new_strides, i, stride_i);
        }
        if (native != Py_None) {               /* NumPy's view of the same layout, cached */
            view_native = slice_native(native, start, length, step);
            if (view_native == NULL) {
                Py_DECREF(new_shape);
                Py_DECREF(new_strides);
                return NULL;
            }
        }
        else
            Py_INCREF(Py_None);
    }
    PyObject *view_offset = new_shape && new_strides ? PyLong_FromSsize_t(offset) : NULL;
    PyObject *view = view_offset ? array_type->tp_alloc(array_type, 0) : NULL;
    if (view != NULL && buffer == Py_None) {            /* a fast-lane result: its memory */
        buffer = PyObject_CallMethodNoArgs(array, str_realize);
        if (buffer == NULL)
            Py_CLEAR(view);
    }
    else
        Py_INCREF(buffer);
    if (view == NULL) {
        Py_XDECREF(new_shape);
        Py_XDECREF(new_strides);
        Py_XDECREF(view_offset);
        Py_DECREF(view_native);
        return NULL;
    }
    PyObject *base = FIELD(array, F_BASE);
    if (base == NULL || base == Py_None)
        base = array;
    PyObject *writeable = FIELD(array, F_WRITEABLE);
    FIELD(view, F_BUFFER) = buffer;
    FIELD(view, F_SHAPE) = new_shape;
    FIELD(view, F_STRIDES) = new_strides;
    FIELD(view, F_OFFSET) = view_offset;
    Py_XINCREF(FIELD(array, F_DTYPE)); FIELD(view, F_DTYPE) = FIELD(array, F_DTYPE);
    Py_XINCREF(FIELD(array, F_DEVICE)); FIELD(view, F_DEVICE) = FIELD(array, F_DEVICE);
    Py_INCREF(base); FIELD(view, F_BASE) = base;
    Py_XINCREF(writeable); FIELD(view, F_WRITEABLE) = writeable;
    FIELD(view, F_NATIVE) = view_native;
    return view;
}

static PyObject *
getitem_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"python", NULL};
    PyObject *python;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "asnumpy._compiled: configure() first");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:GetItem", keywords, &python))
        return NULL;
    GetItem *self = (GetItem *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = getitem_vectorcall;
    Py_INCREF(python); self->python = python;
    return (PyObject *)self;
}

static int
getitem_traverse(GetItem *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->python);
    return 0;
}

static int
getitem_clear(GetItem *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->python);
    return 0;
}

static PyMemberDef getitem_members[] = {
    {"python", T_OBJECT, offsetof(GetItem, python), READONLY, "Every other key's path."},
    {"__dictoffset__", T_PYSSIZET, offsetof(GetItem, dict), READONLY},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(GetItem, vectorcall), READONLY},
    {NULL},
};

static PyTypeObject GetItem_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.GetItem",
    .tp_basicsize = sizeof(GetItem),
    .tp_dealloc = generic_dealloc,
    .tp_vectorcall_offset = offsetof(GetItem, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "ndarray.__getitem__: an int or a slice on the first axis; else the Python one.",
    .tp_traverse = (traverseproc)getitem_traverse,
    .tp_clear = (inquiry)getitem_clear,
    .tp_members = getitem_members,
    .tp_descr_get = bind_method,
    .tp_dictoffset = offsetof(GetItem, dict),
    .tp_new = getitem_new,
};

/* ---- Field: a data descriptor reading one of ndarray's slots --------------- */

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    int field;            /* F_SHAPE, F_DTYPE, F_STRIDES; -1: ndim (the shape's length) */
    PyObject *python;     /* the Python property: its setter, deleter and documentation */
} Field;

static PyObject *
field_get(PyObject *op, PyObject *obj, PyObject *type)
{
    Field *self = (Field *)op;
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(op);
        return op;
    }
    if (Py_TYPE(obj) == array_type || PyObject_TypeCheck(obj, array_type)) {
        PyObject *value = FIELD(obj, self->field < 0 ? F_SHAPE : self->field);
        if (value != NULL) {
            if (self->field < 0 && PyTuple_Check(value))
                return PyLong_FromSsize_t(PyTuple_GET_SIZE(value));
            if (self->field >= 0) {
                Py_INCREF(value);
                return value;
            }
        }
    }
    return Py_TYPE(self->python)->tp_descr_get(self->python, obj, type);
}

static int
field_set(PyObject *op, PyObject *obj, PyObject *value)
{
    Field *self = (Field *)op;
    return Py_TYPE(self->python)->tp_descr_set(self->python, obj, value);
}

static PyObject *
field_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"name", "python", NULL};
    const char *name;
    PyObject *python;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "asnumpy._compiled: configure() first");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO!:Field", keywords, &name,
                                     &PyProperty_Type, &python))
        return NULL;
    int field = strcmp(name, "shape") == 0 ? F_SHAPE : strcmp(name, "dtype") == 0 ? F_DTYPE
        : strcmp(name, "strides") == 0 ? F_STRIDES : strcmp(name, "ndim") == 0 ? -1 : -2;
    if (field == -2) {
        PyErr_Format(PyExc_ValueError, "asnumpy._compiled.Field: no field %s", name);
        return NULL;
    }
    Field *self = (Field *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->field = field;
    Py_INCREF(python); self->python = python;
    return (PyObject *)self;
}

static int
field_traverse(Field *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->python);
    return 0;
}

static int
field_clear(Field *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->python);
    return 0;
}

static PyObject *
field_doc(Field *self, void *closure)
{
    return PyObject_GetAttrString(self->python, "__doc__");
}

static PyObject *
field_python_attr(Field *self, void *closure)
{
    return PyObject_GetAttrString(self->python, (const char *)closure);
}

static PyGetSetDef field_getset[] = {
    {"__doc__", (getter)field_doc, NULL, NULL, NULL},
    {"fget", (getter)field_python_attr, NULL, NULL, "fget"},
    {"fset", (getter)field_python_attr, NULL, NULL, "fset"},
    {"fdel", (getter)field_python_attr, NULL, NULL, "fdel"},
    {"__isabstractmethod__", (getter)field_python_attr, NULL, NULL, "__isabstractmethod__"},
    {NULL},
};

static PyMemberDef field_members[] = {
    {"python", T_OBJECT, offsetof(Field, python), READONLY, "The Python property."},
    {"__dictoffset__", T_PYSSIZET, offsetof(Field, dict), READONLY},
    {NULL},
};

static PyTypeObject Field_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.Field",
    .tp_basicsize = sizeof(Field),
    .tp_dealloc = generic_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A property of ndarray read straight from its slot; set and deleted by Python's.",
    .tp_traverse = (traverseproc)field_traverse,
    .tp_clear = (inquiry)field_clear,
    .tp_members = field_members,
    .tp_getset = field_getset,
    .tp_descr_get = field_get,
    .tp_descr_set = field_set,
    .tp_dictoffset = offsetof(Field, dict),
    .tp_new = field_new,
};

/* ---- Held: a held Plan's repeated call on its planned operands ------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *python;     /* the Python lean call: lean(args, out) */
    PyObject *gate;
    PyObject *call;       /* the NumPy callable (PreparedUfunc.direct) */
    long long work;
    Py_ssize_t nin;
    PyObject *dtypes[2], *shapes[2], *strides[2];
    PyObject *device, *shape, *dtype;    /* the planned device, output shape and dtype */
    int adopts;           /* whether NumPy's own result may become the output */
    DirectState direct;   /* NumPy's inner loop called directly, for a fresh result */
} Held;

/* lean(args, out): the held call, or None for Plan.__call__ to go on */
static PyObject *
held_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Held *self = (Held *)op;
    if (kwnames || PyVectorcall_NARGS(nargsf) != 2 || !PyTuple_CheckExact(args[0]))
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    PyObject *operands = args[0], *out = args[1];
    PyObject *gate = PyList_GET_SIZE(self->gate) ? PyList_GET_ITEM(self->gate, 0) : NULL;
    if (gate != zero || PyTuple_GET_SIZE(operands) != self->nin)
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    PyObject *natives[3] = {NULL, NULL, NULL};
    Operand x;
    for (Py_ssize_t i = 0; i < self->nin; i++) {
        PyObject *operand = PyTuple_GET_ITEM(operands, i);
        if (!read_operand(operand, &x) || x.dtype != self->dtypes[i] ||
            x.device != self->device || !same_shape(x.shape, self->shapes[i]) ||
            FIELD(operand, F_STRIDES) == NULL ||
            !same_shape(FIELD(operand, F_STRIDES), self->strides[i]))
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
        natives[i] = x.native;
    }
    static IntGlobal last_held_split;
    long long split = int_global(x.loops, str_split_min_work, &last_held_split);
    if (split < 0 || self->work >= split)
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    if (out == Py_None) {
        if (!self->adopts)
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
        int accounts = pool_accounts(self->device);
        if (accounts)
            return accounts < 0 ? NULL : PyObject_Vectorcall(self->python, args, nargsf, kwnames);
        PyObject *result = direct_call(&self->direct, natives, (int)self->nin);
        if (result == NULL && !PyErr_Occurred())
            result = PyObject_Vectorcall(self->call, natives, self->nin, NULL);
        return result ? adopt(result, self->shape, self->device, self->strides[0]) : NULL;
    }
    Operand o;
    if (!read_operand(out, &o) || o.device != self->device || FIELD(out, F_WRITEABLE) != Py_True
        || !same_shape(o.shape, self->shape))
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    if (o.dtype != self->dtype) {
        int equal = PyObject_RichCompareBool(o.dtype, self->dtype, Py_EQ);
        if (equal <= 0) {
            PyErr_Clear();
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
        }
    }
    natives[self->nin] = o.native;
    PyObject *result = PyObject_Vectorcall(self->call, natives, self->nin, str_out_kw);
    if (result == NULL)
        return NULL;
    Py_DECREF(result);
    Py_INCREF(out);
    return out;
}

static PyObject *
held_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"python", "gate", "call", "work", "inputs", "device", "shape",
                               "dtype", "adopts", NULL};
    PyObject *python, *gate, *call, *inputs, *device, *shape, *dtype;
    long long work;
    int adopts;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "asnumpy._compiled: configure() first");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!OLO!OOOp:Held", keywords, &python,
                                     &PyList_Type, &gate, &call, &work, &PyTuple_Type, &inputs,
                                     &device, &shape, &dtype, &adopts))
        return NULL;
    Py_ssize_t nin = PyTuple_GET_SIZE(inputs);
    if (nin < 1 || nin > 2) {
        PyErr_SetString(PyExc_ValueError, "asnumpy._compiled.Held: one or two inputs");
        return NULL;
    }
    Held *self = (Held *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = held_vectorcall;
    Py_INCREF(python); self->python = python;
    Py_INCREF(gate); self->gate = gate;
    Py_INCREF(call); self->call = call;
    Py_INCREF(device); self->device = device;
    Py_INCREF(shape); self->shape = shape;
    Py_INCREF(dtype); self->dtype = dtype;
    self->work = work;
    self->adopts = adopts;
    self->nin = nin;
    /* (the planned loop's ufunc itself: NumPy resolves it without a cast; a partial,
     * for a loop with casts, is never called directly) */
    self->direct.state = -1;
    self->direct.ufunc = PyObject_TypeCheck(call, &PyUFunc_Type) ? call : NULL;
    if ((self->direct.known = PyDict_New()) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nin; i++) {
        PyObject *x = PyTuple_GET_ITEM(inputs, i);      /* (dtype, shape, strides) */
        if (!PyTuple_Check(x) || PyTuple_GET_SIZE(x) != 3) {
            PyErr_SetString(PyExc_TypeError, "asnumpy._compiled.Held: inputs are "
                            "(dtype, shape, strides) triples");
            Py_DECREF(self);
            return NULL;
        }
        self->dtypes[i] = PyTuple_GET_ITEM(x, 0);
        self->shapes[i] = PyTuple_GET_ITEM(x, 1);
        self->strides[i] = PyTuple_GET_ITEM(x, 2);
        Py_INCREF(self->dtypes[i]);
        Py_INCREF(self->shapes[i]);
        Py_INCREF(self->strides[i]);
    }
    return (PyObject *)self;
}

static int
held_traverse(Held *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->python);
    Py_VISIT(self->gate);
    Py_VISIT(self->call);
    Py_VISIT(self->device);
    Py_VISIT(self->shape);
    Py_VISIT(self->dtype);
    Py_VISIT(self->direct.known);
    for (int i = 0; i < 2; i++) {
        Py_VISIT(self->dtypes[i]);
        Py_VISIT(self->shapes[i]);
        Py_VISIT(self->strides[i]);
    }
    return 0;
}

static int
held_clear(Held *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->python);
    Py_CLEAR(self->gate);
    Py_CLEAR(self->call);
    Py_CLEAR(self->device);
    Py_CLEAR(self->shape);
    Py_CLEAR(self->dtype);
    Py_CLEAR(self->direct.known);
    for (int i = 0; i < 2; i++) {
        Py_CLEAR(self->dtypes[i]);
        Py_CLEAR(self->shapes[i]);
        Py_CLEAR(self->strides[i]);
    }
    return 0;
}

static PyMemberDef held_members[] = {
    {"python", T_OBJECT, offsetof(Held, python), READONLY, "The Python lean call."},
    {"__dictoffset__", T_PYSSIZET, offsetof(Held, dict), READONLY},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Held, vectorcall), READONLY},
    {NULL},
};

static PyTypeObject Held_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.Held",
    .tp_basicsize = sizeof(Held),
    .tp_dealloc = generic_dealloc,
    .tp_vectorcall_offset = offsetof(Held, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A held Plan's call on its planned operands: one NumPy call; else Python's.",
    .tp_traverse = (traverseproc)held_traverse,
    .tp_clear = (inquiry)held_clear,
    .tp_members = held_members,
    .tp_dictoffset = offsetof(Held, dict),
    .tp_new = held_new,
};

/* ---- PlanBase: the base class of asnumpy.Plan (its __call__) ---------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *lean;       /* the held call (a Held, a Python function) or None */
} PlanBase;

static PyObject *str_call_python;

static PyObject *
plan_base_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PlanBase *self = (PlanBase *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (self->lean && Py_TYPE(self->lean) == &Held_Type && (nkw == 0 || (nkw == 1 &&
            PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), PyTuple_GET_ITEM(str_out_kw, 0))
            == 0))) {
        PyObject *operands = PyTuple_New(nargs);
        if (operands == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(operands, i, args[i]);
        }
        PyObject *call[2] = {operands, nkw ? args[nargs] : Py_None};
        PyObject *result = held_vectorcall(self->lean, call, 2, NULL);
        Py_DECREF(operands);
        if (result != Py_None)
            return result;
        Py_DECREF(result);
    }
    else if (PyErr_Occurred())
        return NULL;
    /* Plan._call_python(*args, **kwargs): the call as the Python path makes it */
    PyObject *python = PyObject_GetAttr(op, str_call_python);
    if (python == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(python, args, nargs, kwnames);
    Py_DECREF(python);
    return result;
}

static PyObject *
plan_base_call(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(op, args, kwargs);
}

static PyObject *
plan_base_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PlanBase *self = (PlanBase *)type->tp_alloc(type, 0);
    if (self != NULL)
        self->vectorcall = plan_base_vectorcall;
    return (PyObject *)self;
}

static int
plan_base_traverse(PlanBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->lean);
    return 0;
}

static int
plan_base_clear(PlanBase *self)
{
    Py_CLEAR(self->lean);
    return 0;
}

static void
plan_base_dealloc(PyObject *op)
{
    PyObject_GC_UnTrack(op);
    plan_base_clear((PlanBase *)op);
    Py_TYPE(op)->tp_free(op);
}

static PyMemberDef plan_base_members[] = {
    {"_lean", T_OBJECT, offsetof(PlanBase, lean), 0, "The held call, once made, or None."},
    {NULL},
};

static PyTypeObject PlanBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.PlanBase",
    .tp_basicsize = sizeof(PlanBase),
    .tp_dealloc = plan_base_dealloc,
    .tp_vectorcall_offset = offsetof(PlanBase, vectorcall),
    .tp_call = plan_base_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "The base class of asnumpy.Plan: a call takes the held call first, then the "
              "plan's Python call.",
    .tp_traverse = (traverseproc)plan_base_traverse,
    .tp_clear = (inquiry)plan_base_clear,
    .tp_members = plan_base_members,
    .tp_new = plan_base_new,
};

/* ---- ArrayFields: the storage of asnumpy.ndarray ---------------------------- */

/* ndarray's nine fields and its weak references.  The type itself is no GC type:
 * ndarray, a Python subclass, is still tracked by the cycle collector, which does
 * not visit these fields -- as for NumPy's arrays, what an array refers to (its
 * buffer, a base array, NumPy views, a device) never refers back to it. */
typedef struct {
    PyObject_HEAD
    PyObject *fields[N_FIELDS];
    PyObject *weakreflist;
} ArrayFields;

static void
array_fields_dealloc(PyObject *op)
{
    ArrayFields *self = (ArrayFields *)op;
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    for (int i = 0; i < N_FIELDS; i++)
        Py_CLEAR(self->fields[i]);
    Py_TYPE(op)->tp_free(op);
}

#define ARRAY_FIELD(name, index, doc) \
    {name, T_OBJECT_EX, offsetof(ArrayFields, fields) + (index) * sizeof(PyObject *), 0, doc}

static PyMemberDef array_fields_members[] = {
    ARRAY_FIELD("_buffer", F_BUFFER, "The device memory (None: a NumPy result, adopted)."),
    ARRAY_FIELD("_shape", F_SHAPE, NULL),
    ARRAY_FIELD("_strides", F_STRIDES, NULL),
    ARRAY_FIELD("_offset", F_OFFSET, NULL),
    ARRAY_FIELD("_dtype", F_DTYPE, NULL),
    ARRAY_FIELD("_device", F_DEVICE, NULL),
    ARRAY_FIELD("_base", F_BASE, NULL),
    ARRAY_FIELD("_writeable", F_WRITEABLE, NULL),
    ARRAY_FIELD("_native", F_NATIVE, "The cached NumPy view of host memory, or None."),
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ArrayFields, weakreflist), READONLY},
    {NULL},
};

static PyTypeObject ArrayFields_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.ArrayFields",
    .tp_basicsize = sizeof(ArrayFields),
    .tp_dealloc = array_fields_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The fields of asnumpy.ndarray (its base class), in compiled storage.",
    .tp_members = array_fields_members,
    .tp_weaklistoffset = offsetof(ArrayFields, weakreflist),
    .tp_new = PyType_GenericNew,
};

/* ---- NumpyCall: a function's small plain call, made by NumPy ------------------ */

/* ``f(x, ...)`` on asnumpy arrays (and, where allowed, Python scalars) without
 * keywords, small enough that asnumpy's own path would make this very NumPy call on
 * the arrays' views (each array under the loop kernels' limits for the function and
 * under fast.POOL_MIN_BYTES): NumPy's function on the views, its result adopted.  Anything else, and any error NumPy raises (the function is pure: its
 * result is fresh), goes to ``python``, asnumpy's function, which raises asnumpy's
 * error. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *numpy, *python, *gate, *name;
    Py_ssize_t nargs_min, nargs_max;
    int scalars;          /* Python and NumPy scalars may be operands (where's x, y) */
    int reduces;          /* the result is one value: no pool size to keep to */
    IntGlobal limits[4];     /* the last values of the loop kernels' limits for ``name`` */
} NumpyCall;

static PyObject *str_single_call_limits;

/* Whether an array of ``size`` elements and ``nbytes`` bytes stays under every limit the
 * loop kernels give for this function (loops.SINGLE_CALL_LIMITS[name]: (module, attribute,
 * counts bytes) triples, read at each call: the calibration and tests set them). */
static int
under_limits(NumpyCall *self, PyObject *loops, Py_ssize_t size, Py_ssize_t nbytes)
{
    PyObject *table = PyModule_CheckExact(loops) ? PyDict_GetItemWithError(
        PyModule_GetDict(loops), str_single_call_limits) : NULL;      /* borrowed */
    PyObject *entry = table && PyDict_CheckExact(table) ? PyDict_GetItemWithError(
        table, self->name) : NULL;
    if (entry == NULL || !PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) > 4) {
        PyErr_Clear();
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(entry); i++) {
        PyObject *limit = PyTuple_GET_ITEM(entry, i);
        if (!PyTuple_CheckExact(limit) || PyTuple_GET_SIZE(limit) != 3)
            return 0;
        long long value = int_global(PyTuple_GET_ITEM(limit, 0), PyTuple_GET_ITEM(limit, 1),
                                     &self->limits[i]);
        long long used = PyObject_IsTrue(PyTuple_GET_ITEM(limit, 2)) ? nbytes : size;
        if (value < 0 || used >= value)
            return 0;
    }
    return 1;
}

static PyObject *
shape_tuple(PyArrayObject *array)
{
    int ndim = PyArray_NDIM(array);
    PyObject *shape = PyTuple_New(ndim);
    for (int i = 0; shape && i < ndim; i++) {
        PyObject *length = PyLong_FromSsize_t(PyArray_DIMS(array)[i]);
        if (length == NULL) {
            Py_CLEAR(shape);
            break;
        }
        PyTuple_SET_ITEM(shape, i, length);
    }
    return shape;
}

static PyObject *
numpy_call_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    NumpyCall *self = (NumpyCall *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *gate = PyList_GET_SIZE(self->gate) ? PyList_GET_ITEM(self->gate, 0) : NULL;
    if (kwnames || nargs < self->nargs_min || nargs > self->nargs_max || nargs > 3 ||
        gate != zero || !configured)
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    static IntGlobal last_pool_min;                    /* fast.POOL_MIN_BYTES */
    long long max_bytes = int_global(lane_globals, str_pool_min_bytes, &last_pool_min);
    PyObject *natives[3], *device = NULL, *like = NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Operand x;
        if (read_operand(args[i], &x)) {
            Py_ssize_t size = PyArray_SIZE((PyArrayObject *)x.native);
            Py_ssize_t nbytes = PyArray_NBYTES((PyArrayObject *)x.native);
            if ((device && x.device != device) || size < 1 ||
                (!self->reduces && nbytes >= max_bytes) ||
                !under_limits(self, x.loops, size, nbytes))
                return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
            device = x.device;
            natives[i] = x.native;
            if (like == NULL)
                like = FIELD(args[i], F_STRIDES);
        }
        else if (self->scalars && (is_weak_scalar(args[i]) || PyArray_IsScalar(args[i],
                                                                               Generic)))
            natives[i] = args[i];
        else
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    }
    if (device == NULL)
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    int accounts = pool_accounts(device);
    if (accounts)
        return accounts < 0 ? NULL : PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    PyObject *result = PyObject_Vectorcall(self->numpy, natives, nargs, NULL);
    if (result == NULL) {                       /* asnumpy's path raises asnumpy's error */
        PyErr_Clear();
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    }
    if (PyTuple_Check(result)) {                /* (several results: asnumpy's path) */
        Py_DECREF(result);
        return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
    }
    if (Py_TYPE(result) != numpy_type) {        /* a NumPy scalar: a 0-d array */
        PyObject *array = PyArray_IsScalar(result, Generic) ? PyArray_FromScalar(result, NULL)
                                                            : NULL;
        Py_DECREF(result);
        if (array == NULL) {
            PyErr_Clear();
            return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
        }
        result = array;
    }
    PyObject *shape = shape_tuple((PyArrayObject *)result);
    if (shape == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    PyObject *made = adopt(result, shape, device, like);
    Py_DECREF(shape);
    return made;
}

static PyObject *
numpy_call_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"numpy", "python", "gate", "name", "nargs_min", "nargs_max",
                               "scalars", "reduces", NULL};
    PyObject *numpy, *python, *gate, *name;
    Py_ssize_t nargs_min, nargs_max;
    int scalars = 0, reduces = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO!Unn|pp:NumpyCall", keywords, &numpy,
                                     &python, &PyList_Type, &gate, &name, &nargs_min,
                                     &nargs_max, &scalars, &reduces))
        return NULL;
    NumpyCall *self = (NumpyCall *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = numpy_call_vectorcall;
    Py_INCREF(numpy); self->numpy = numpy;
    Py_INCREF(python); self->python = python;
    Py_INCREF(gate); self->gate = gate;
    Py_INCREF(name); self->name = name;
    self->nargs_min = nargs_min;
    self->nargs_max = nargs_max;
    self->scalars = scalars;
    self->reduces = reduces;
    return (PyObject *)self;
}

static int
numpy_call_traverse(NumpyCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->numpy);
    Py_VISIT(self->python);
    Py_VISIT(self->gate);
    Py_VISIT(self->name);
    return 0;
}

static int
numpy_call_clear(NumpyCall *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->numpy);
    Py_CLEAR(self->python);
    Py_CLEAR(self->gate);
    Py_CLEAR(self->name);
    for (int i = 0; i < 4; i++)
        Py_CLEAR(self->limits[i].value);
    return 0;
}

static PyMemberDef numpy_call_members[] = {
    {"python", T_OBJECT, offsetof(NumpyCall, python), READONLY, "asnumpy's function."},
    {"numpy", T_OBJECT, offsetof(NumpyCall, numpy), READONLY, "NumPy's function."},
    {"__dictoffset__", T_PYSSIZET, offsetof(NumpyCall, dict), READONLY},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(NumpyCall, vectorcall), READONLY},
    {NULL},
};

static PyTypeObject NumpyCall_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.NumpyCall",
    .tp_basicsize = sizeof(NumpyCall),
    .tp_dealloc = generic_dealloc,
    .tp_vectorcall_offset = offsetof(NumpyCall, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A function whose small plain call NumPy makes on the views; else asnumpy's.",
    .tp_traverse = (traverseproc)numpy_call_traverse,
    .tp_clear = (inquiry)numpy_call_clear,
    .tp_members = numpy_call_members,
    .tp_dictoffset = offsetof(NumpyCall, dict),
    .tp_new = numpy_call_new,
};

/* ---- module -------------------------------------------------------------- */

/* Python 3.11 does not give a heap subclass its base's vectorcall (3.12 does, when the
 * subclass defines no __call__): asnumpy.ufunc and Plan ask for it here, once. */
static PyObject *
inherit_vectorcall(PyObject *module, PyObject *type_object)
{
    if (!PyType_Check(type_object)) {
        PyErr_SetString(PyExc_TypeError, "inherit_vectorcall() takes a class");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)type_object, *base = type->tp_base;
    if ((base != &UfuncBase_Type && base != &PlanBase_Type) ||
        type->tp_call != base->tp_call) {
        PyErr_Format(PyExc_TypeError, "inherit_vectorcall(): %s is no direct subclass of a "
                     "compiled base that keeps its call", type->tp_name);
        return NULL;
    }
    type->tp_vectorcall_offset = base->tp_vectorcall_offset;
    type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    Py_RETURN_NONE;
}

/* ---- LaidOutKernel, CheckedCall: a small fused cpu kernel laid out once ----- */

/* The entry of a cpu program (backends/cpu/programs.py): its value table, the block
 * range it runs, and the launch dimensions. */
typedef int (*host_entry)(void **table, long long begin, long long end, unsigned *dims);

#define LAID_MAX_VALUES 64      /* pointers and scalars of one laid-out kernel */

typedef struct {                /* an array the kernel reads or writes */
    Py_ssize_t position;        /* an input: its argument; -1: made by each run */
    PyObject *shape;            /* a made array's shape (a tuple; the result's) */
    PyArray_Descr *descr;       /* and its dtype */
    int ndim;
    npy_intp dims[NPY_MAXDIMS];
} LaidArray;

typedef struct {
    void *entry, *table, *storage, *dims;
    long long blocks;
} LaidLaunch;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *spec;             /* the constructor's arguments (keeps the borrowed parts) */
    PyObject *device, *failure;
    Py_ssize_t narrays, nviews, nlaunches, noutputs;
    LaidArray *arrays;          /* the operands, then the partials of a chunked reduction */
    LaidLaunch *launches;
    Py_ssize_t *outputs;        /* >= 0: operand k's array; < 0: argument -1 - k */
} LaidOutKernel;

static PyObject *str_view;

/* One run: views, fresh outputs and partials, the pointers and ``scalars`` written into
 * every launch's value table, the entries called, the outputs adopted.  The GIL stays
 * held from the first write to the last entry's return (the tables are shared by every
 * run), and the caller (fusion/_run.py) keeps this to work one thread runs and to a pool
 * that does not account. */
static PyObject *
laid_run(LaidOutKernel *self, PyObject *const *args, Py_ssize_t nargs,
         PyObject *const *scalars, Py_ssize_t nscalars)
{
    if (self->nviews + nscalars > LAID_MAX_VALUES) {
        PyErr_SetString(PyExc_TypeError, "LaidOutKernel: too many scalars");
        return NULL;
    }
    PyObject *views[LAID_MAX_VALUES] = {NULL};
    PyObject *result = NULL;
    for (Py_ssize_t j = 0; j < nscalars; j++) {
        PyArray_Descr *descr;
        if (!PyArray_IsScalar(scalars[j], Generic)
                || (descr = PyArray_DescrFromScalar(scalars[j])) == NULL) {
            PyErr_SetString(PyExc_TypeError, "LaidOutKernel: scalars must be NumPy scalars");
            return NULL;
        }
        int fits = PyDataType_ELSIZE(descr) <= 16
                   && (PyDataType_ISNUMBER(descr) || descr->type_num == NPY_BOOL);
        Py_DECREF(descr);
        if (!fits) {
            PyErr_SetString(PyExc_TypeError,
                            "LaidOutKernel: a scalar must be a number of at most 16 bytes");
            return NULL;
        }
    }
    PyObject *loops = AT(self->device, device_loops_offset);
    for (Py_ssize_t k = 0; k < self->nviews; k++) {
        LaidArray *a = &self->arrays[k];
        if (a->position < 0) {
            Py_INCREF(a->descr);
            views[k] = PyArray_Empty(a->ndim, a->dims, a->descr, 0);
        } else {
            PyObject *arg = a->position < nargs ? args[a->position] : NULL;
            if (arg == NULL || Py_TYPE(arg) != array_type || FIELD(arg, F_NATIVE) == NULL) {
                PyErr_SetString(PyExc_TypeError, "LaidOutKernel: an input is no asnumpy array");
                goto done;
            }
            PyObject *native = FIELD(arg, F_NATIVE);
            if (PyArray_Check(native))
                Py_INCREF(native);
            else if (loops == NULL || loops == Py_None)
                native = NULL, PyErr_SetString(PyExc_TypeError, "LaidOutKernel: no host view");
            else if ((native = PyObject_CallMethodOneArg(loops, str_view, arg)) != NULL
                     && !PyArray_Check(native)) {
                Py_CLEAR(native);
                PyErr_SetString(PyExc_TypeError, "LaidOutKernel: the host view is no array");
            }
            views[k] = native;
        }
        if (views[k] == NULL)
            goto done;
    }
    for (Py_ssize_t n = 0; n < self->nlaunches; n++) {
        LaidLaunch *launch = &self->launches[n];
        char *storage = (char *)launch->storage;
        for (Py_ssize_t k = 0; k < self->nviews; k++) {
            void *data = PyArray_DATA((PyArrayObject *)views[k]);
            memcpy(storage + 16 * k, &data, sizeof data);
        }
        for (Py_ssize_t j = 0; j < nscalars; j++)
            PyArray_ScalarAsCtype(scalars[j], storage + 16 * (self->nviews + j));
        if (((host_entry)launch->entry)((void **)launch->table, 0, launch->blocks,
                                        (unsigned *)launch->dims)) {
            PyErr_SetObject(PyExc_MemoryError, self->failure);
            goto done;
        }
    }
    /* the outputs become asnumpy arrays, each once however often it is returned */
    PyObject *made[LAID_MAX_VALUES] = {NULL};
    result = PyTuple_New(self->noutputs);
    for (Py_ssize_t i = 0; result && i < self->noutputs; i++) {
        Py_ssize_t k = self->outputs[i];
        PyObject *item;
        if (k < 0) {
            item = args[-1 - k];
            Py_INCREF(item);
        } else {
            if (made[k] == NULL) {
                made[k] = adopt(views[k], self->arrays[k].shape, self->device, NULL);
                views[k] = NULL;                     /* stolen */
                if (made[k] == NULL) {
                    Py_CLEAR(result);
                    break;
                }
            }
            item = made[k];
            Py_INCREF(item);
        }
        PyTuple_SET_ITEM(result, i, item);
    }
    for (Py_ssize_t k = 0; k < self->narrays; k++)
        Py_XDECREF(made[k]);
done:
    for (Py_ssize_t k = 0; k < self->nviews; k++)
        Py_XDECREF(views[k]);
    return result;
}

/* kernel(args: tuple, scalars: list) -> tuple of results (no checks of the arguments'
 * layout: fusion/_run.py calls it for the schedule the fusion looked up) */
static PyObject *
laid_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (kwnames || PyVectorcall_NARGS(nargsf) != 2 || !PyTuple_Check(args[0])
            || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "LaidOutKernel(args: tuple, scalars: list)");
        return NULL;
    }
    return laid_run((LaidOutKernel *)op, &PyTuple_GET_ITEM(args[0], 0),
                    PyTuple_GET_SIZE(args[0]), &PyList_GET_ITEM(args[1], 0),
                    PyList_GET_SIZE(args[1]));
}

static PyObject *
laid_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"launches", "operands", "partials", "outputs", "device",
                               "failure", NULL};
    PyObject *launches, *operands, *partials, *outputs, *device, *failure;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!O!O!U:LaidOutKernel", keywords,
                                     &PyTuple_Type, &launches, &PyTuple_Type, &operands,
                                     &PyTuple_Type, &partials, &PyTuple_Type, &outputs,
                                     device_type, &device, &failure))
        return NULL;
    Py_ssize_t noperands = PyTuple_GET_SIZE(operands);
    Py_ssize_t nviews = noperands + PyTuple_GET_SIZE(partials);
    if (nviews > LAID_MAX_VALUES) {
        PyErr_SetString(PyExc_ValueError, "LaidOutKernel: too many arrays");
        return NULL;
    }
    LaidOutKernel *self = (LaidOutKernel *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = laid_vectorcall;
    if ((self->spec = PyTuple_Pack(6, launches, operands, partials, outputs, device,
                                   failure)) == NULL)
        goto fail;
    Py_INCREF(device); self->device = device;
    Py_INCREF(failure); self->failure = failure;
    self->nviews = self->narrays = nviews;
    self->nlaunches = PyTuple_GET_SIZE(launches);
    self->noutputs = PyTuple_GET_SIZE(outputs);
    self->arrays = PyMem_Calloc(nviews ? nviews : 1, sizeof(LaidArray));
    self->launches = PyMem_Calloc(self->nlaunches ? self->nlaunches : 1, sizeof(LaidLaunch));
    self->outputs = PyMem_Calloc(self->noutputs ? self->noutputs : 1, sizeof(Py_ssize_t));
    if (!self->arrays || !self->launches || !self->outputs) {
        PyErr_NoMemory();
        goto fail;
    }
    /* an operand: an input's argument position (int), or a made array's (shape, dtype) */
    for (Py_ssize_t k = 0; k < nviews; k++) {
        PyObject *item = k < noperands ? PyTuple_GET_ITEM(operands, k)
                                       : PyTuple_GET_ITEM(partials, k - noperands);
        LaidArray *a = &self->arrays[k];
        if (PyLong_Check(item) && k < noperands) {
            if ((a->position = PyLong_AsSsize_t(item)) < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "LaidOutKernel: a negative position");
                goto fail;
            }
            continue;
        }
        PyObject *shape, *dtype;
        if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "O!O!", &PyTuple_Type, &shape,
                                                      &PyArrayDescr_Type, &dtype)
                || PyTuple_GET_SIZE(shape) > NPY_MAXDIMS) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError,
                            "LaidOutKernel: an operand is a position or (shape, dtype)");
            goto fail;
        }
        a->position = -1;
        a->shape = shape;
        a->descr = (PyArray_Descr *)dtype;
        a->ndim = (int)PyTuple_GET_SIZE(shape);
        for (int d = 0; d < a->ndim; d++)
            if ((a->dims[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d))) < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "LaidOutKernel: a negative extent");
                goto fail;
            }
    }
    /* a launch: the addresses (entry, table, storage, blocks, dims) of a LaidOutLaunch */
    for (Py_ssize_t n = 0; n < self->nlaunches; n++) {
        PyObject *item = PyTuple_GET_ITEM(launches, n);
        void *fields[5];
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 5) {
            PyErr_SetString(PyExc_TypeError, "LaidOutKernel: a launch is 5 addresses");
            goto fail;
        }
        for (int f = 0; f < 5; f++) {
            fields[f] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(item, f));
            if (fields[f] == NULL && (PyErr_Occurred() || f != 3)) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "LaidOutKernel: a null address");
                goto fail;
            }
        }
        self->launches[n] = (LaidLaunch){fields[0], fields[1], fields[2], fields[4],
                                         (long long)(Py_ssize_t)fields[3]};
    }
    /* an output: ("slot", operand) or ("arg", position) */
    for (Py_ssize_t i = 0; i < self->noutputs; i++) {
        const char *kind;
        Py_ssize_t k;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(outputs, i), "sn", &kind, &k))
            goto fail;
        int slot = strcmp(kind, "slot") == 0;
        if ((!slot && strcmp(kind, "arg") != 0) || k < 0
                || (slot && (k >= noperands || self->arrays[k].position >= 0))) {
            PyErr_SetString(PyExc_ValueError, "LaidOutKernel: an output is a made operand "
                                              "(\"slot\", k) or an argument (\"arg\", k)");
            goto fail;
        }
        self->outputs[i] = slot ? k : -1 - k;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static int
laid_traverse(LaidOutKernel *self, visitproc visit, void *arg)
{
    Py_VISIT(self->spec);
    Py_VISIT(self->device);
    Py_VISIT(self->failure);
    return 0;
}

static int
laid_clear(LaidOutKernel *self)
{
    Py_CLEAR(self->spec);
    Py_CLEAR(self->device);
    Py_CLEAR(self->failure);
    return 0;
}

static void
laid_dealloc(PyObject *op)
{
    LaidOutKernel *self = (LaidOutKernel *)op;
    PyObject_GC_UnTrack(op);
    laid_clear(self);
    PyMem_Free(self->arrays);
    PyMem_Free(self->launches);
    PyMem_Free(self->outputs);
    Py_TYPE(op)->tp_free(op);
}

static PyTypeObject LaidOutKernel_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.LaidOutKernel",
    .tp_basicsize = sizeof(LaidOutKernel),
    .tp_dealloc = laid_dealloc,
    .tp_vectorcall_offset = offsetof(LaidOutKernel, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "kernel(args, scalars): a small fused cpu kernel laid out once "
              "(asnumpy.extension.fusion._run.SmallLaunch).",
    .tp_traverse = (traverseproc)laid_traverse,
    .tp_clear = (inquiry)laid_clear,
    .tp_new = laid_new,
};

/* CheckedCall(kernel, fallback, gate, device, kinds, checks, scalars, is_tuple):
 * call(*args) runs ``kernel`` when the arguments have the types ``kinds``, the arrays
 * the (position, dtype, shape, strides) of ``checks`` on ``device``, the lean gate is
 * down and the pool does not account; any other call is ``fallback(*args)``.  A scalar
 * is a constant NumPy scalar or (position, convert): convert(args[position]), whose
 * error sends the call to ``fallback`` too (the fusion gives NumPy's answer). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *kernel, *fallback, *gate, *device, *kinds, *checks, *scalars;
    int is_tuple;
} CheckedCall;

static PyObject *
checked_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    CheckedCall *self = (CheckedCall *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *gate = PyList_GET_SIZE(self->gate) ? PyList_GET_ITEM(self->gate, 0) : NULL;
    if (kwnames || gate != zero || nargs != PyTuple_GET_SIZE(self->kinds))
        goto fallback;
    for (Py_ssize_t k = 0; k < nargs; k++)
        if ((PyObject *)Py_TYPE(args[k]) != PyTuple_GET_ITEM(self->kinds, k))
            goto fallback;
    for (Py_ssize_t c = 0; c < PyTuple_GET_SIZE(self->checks); c++) {
        PyObject *check = PyTuple_GET_ITEM(self->checks, c);
        PyObject *array = args[PyLong_AsSsize_t(PyTuple_GET_ITEM(check, 0))];
        PyObject *shape = FIELD(array, F_SHAPE), *strides = FIELD(array, F_STRIDES);
        if (FIELD(array, F_DTYPE) != PyTuple_GET_ITEM(check, 1)
                || FIELD(array, F_DEVICE) != self->device || shape == NULL || strides == NULL
                || !same_shape(shape, PyTuple_GET_ITEM(check, 2))
                || !same_shape(strides, PyTuple_GET_ITEM(check, 3)))
            goto fallback;
    }
    int accounts = pool_accounts(self->device);
    if (accounts)
        return accounts < 0 ? NULL : PyObject_Vectorcall(self->fallback, args, nargsf, NULL);
    Py_ssize_t nscalars = PyTuple_GET_SIZE(self->scalars);
    if (nscalars > LAID_MAX_VALUES)
        goto fallback;
    PyObject *values[LAID_MAX_VALUES] = {NULL};
    for (Py_ssize_t j = 0; j < nscalars; j++) {
        PyObject *scalar = PyTuple_GET_ITEM(self->scalars, j);
        if (PyTuple_Check(scalar)) {
            PyObject *value = args[PyLong_AsSsize_t(PyTuple_GET_ITEM(scalar, 0))];
            values[j] = PyObject_CallOneArg(PyTuple_GET_ITEM(scalar, 1), value);
            if (values[j] == NULL) {
                PyErr_Clear();
                for (Py_ssize_t i = 0; i < j; i++)
                    Py_DECREF(values[i]);
                goto fallback;
            }
        } else {
            Py_INCREF(scalar);
            values[j] = scalar;
        }
    }
    PyObject *results = laid_run((LaidOutKernel *)self->kernel, args, nargs, values, nscalars);
    for (Py_ssize_t j = 0; j < nscalars; j++)
        Py_DECREF(values[j]);
    if (results == NULL || self->is_tuple)
        return results;
    PyObject *first = PyTuple_GET_ITEM(results, 0);
    Py_INCREF(first);
    Py_DECREF(results);
    return first;
fallback:
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static PyObject *
checked_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"kernel", "fallback", "gate", "device", "kinds", "checks",
                               "scalars", "is_tuple", NULL};
    PyObject *kernel, *fallback, *gate, *device, *kinds, *checks, *scalars;
    int is_tuple;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OO!O!O!O!O!p:CheckedCall", keywords,
                                     &LaidOutKernel_Type, &kernel, &fallback, &PyList_Type,
                                     &gate, device_type, &device, &PyTuple_Type, &kinds,
                                     &PyTuple_Type, &checks, &PyTuple_Type, &scalars,
                                     &is_tuple))
        return NULL;
    Py_ssize_t nargs = PyTuple_GET_SIZE(kinds);
    for (Py_ssize_t c = 0; c < PyTuple_GET_SIZE(checks); c++) {
        PyObject *check = PyTuple_GET_ITEM(checks, c);
        Py_ssize_t k = PyTuple_Check(check) && PyTuple_GET_SIZE(check) == 4
                       && PyLong_Check(PyTuple_GET_ITEM(check, 0))
                       ? PyLong_AsSsize_t(PyTuple_GET_ITEM(check, 0)) : -1;
        if (k < 0 || k >= nargs || PyTuple_GET_ITEM(kinds, k) != (PyObject *)array_type) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "CheckedCall: a check is (position of an "
                                              "array argument, dtype, shape, strides)");
            return NULL;
        }
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(scalars); j++) {
        PyObject *scalar = PyTuple_GET_ITEM(scalars, j);
        if (!PyTuple_Check(scalar))
            continue;
        Py_ssize_t k = PyTuple_GET_SIZE(scalar) == 2 && PyLong_Check(PyTuple_GET_ITEM(scalar, 0))
                       ? PyLong_AsSsize_t(PyTuple_GET_ITEM(scalar, 0)) : -1;
        if (k < 0 || k >= nargs || !PyCallable_Check(PyTuple_GET_ITEM(scalar, 1))) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "CheckedCall: a scalar is a NumPy scalar or "
                                              "(position, convert)");
            return NULL;
        }
    }
    CheckedCall *self = (CheckedCall *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = checked_vectorcall;
    Py_INCREF(kernel); self->kernel = kernel;
    Py_INCREF(fallback); self->fallback = fallback;
    Py_INCREF(gate); self->gate = gate;
    Py_INCREF(device); self->device = device;
    Py_INCREF(kinds); self->kinds = kinds;
    Py_INCREF(checks); self->checks = checks;
    Py_INCREF(scalars); self->scalars = scalars;
    self->is_tuple = is_tuple;
    return (PyObject *)self;
}

static int
checked_traverse(CheckedCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->kernel);
    Py_VISIT(self->fallback);
    Py_VISIT(self->gate);
    Py_VISIT(self->device);
    Py_VISIT(self->kinds);
    Py_VISIT(self->checks);
    Py_VISIT(self->scalars);
    return 0;
}

static int
checked_clear(CheckedCall *self)
{
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->gate);
    Py_CLEAR(self->device);
    Py_CLEAR(self->kinds);
    Py_CLEAR(self->checks);
    Py_CLEAR(self->scalars);
    return 0;
}

static PyMemberDef checked_members[] = {
    {"kernel", T_OBJECT, offsetof(CheckedCall, kernel), READONLY, "The LaidOutKernel run."},
    {"fallback", T_OBJECT, offsetof(CheckedCall, fallback), READONLY,
     "What any other call is."},
    {NULL},
};

static PyTypeObject CheckedCall_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asnumpy._core._compiled.CheckedCall",
    .tp_basicsize = sizeof(CheckedCall),
    .tp_dealloc = generic_dealloc,
    .tp_vectorcall_offset = offsetof(CheckedCall, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "call(*args): a laid-out kernel behind a check of the arguments' signature; "
              "any other call goes to the fallback.",
    .tp_traverse = (traverseproc)checked_traverse,
    .tp_clear = (inquiry)checked_clear,
    .tp_members = checked_members,
    .tp_new = checked_new,
};

static PyMethodDef module_methods[] = {
    {"inherit_vectorcall", inherit_vectorcall, METH_O,
     "inherit_vectorcall(cls): cls, a direct subclass of UfuncBase or PlanBase that defines "
     "no __call__, is called through its base's vectorcall."},
    {"configure", configure, METH_VARARGS,
     "configure(ndarray, numpy.ndarray, Device, numpy.asarray, accounting_pools, lane globals, "
     "NumPy's dtypes): what the lanes read; called once by asnumpy._core.compiled."},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "asnumpy._core._compiled",
    "The compiled common cases of the cpu fast lane (asnumpy._core.compiled).", -1,
    module_methods,
};

#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC
PyInit__compiled(void)
{
    INTERN(str_split_min_work, "SPLIT_MIN_WORK");
    INTERN(str_reduce_split_min, "REDUCE_SPLIT_MIN");
    INTERN(str_pool_min_bytes, "POOL_MIN_BYTES");
    INTERN(str_standard_values, "STANDARD_VALUES");
    INTERN(str_realize, "_realize");
    INTERN(str_accounting, "accounting");
    INTERN(str_view, "view");
    INTERN(str_call_general, "_call_general");
    INTERN(str_call_python, "_call_python");
    INTERN(str_single_call_limits, "SINGLE_CALL_LIMITS");
    if ((str_axis_kw = Py_BuildValue("(s)", "axis")) == NULL ||
        (str_out_kw = Py_BuildValue("(s)", "out")) == NULL ||
        (zero = PyLong_FromLong(0)) == NULL)
        return NULL;
    PyTypeObject *types[] = {&Lane_Type, &Shortcut_Type, &UfuncBase_Type, &GetItem_Type,
                             &Field_Type, &Held_Type, &PlanBase_Type, &ArrayFields_Type,
                             &NumpyCall_Type, &LaidOutKernel_Type, &CheckedCall_Type};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (PyType_Ready(types[i]) < 0)
            return NULL;
    import_array();
    import_umath();
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    const char *names[] = {"Lane", "Shortcut", "UfuncBase", "GetItem", "Field", "Held",
                           "PlanBase", "ArrayFields", "NumpyCall", "LaidOutKernel",
                           "CheckedCall"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        Py_INCREF(types[i]);
        if (PyModule_AddObject(module, names[i], (PyObject *)types[i]) < 0) {
            Py_DECREF(types[i]);
            Py_DECREF(module);
            return NULL;
        }
    }
    if (PyModule_AddIntConstant(module, "BINARY", K_BINARY) < 0 ||
        PyModule_AddIntConstant(module, "BINARY_OUT", K_BINARY_OUT) < 0 ||
        PyModule_AddIntConstant(module, "UNARY", K_UNARY) < 0 ||
        PyModule_AddIntConstant(module, "UNARY_OUT", K_UNARY_OUT) < 0 ||
        PyModule_AddIntConstant(module, "REDUCE", K_REDUCE) < 0 ||
        PyModule_AddIntConstant(module, "PLAIN", FORM_PLAIN) < 0 ||
        PyModule_AddIntConstant(module, "REFLECTED", FORM_REFLECTED) < 0 ||
        PyModule_AddIntConstant(module, "INPLACE", FORM_INPLACE) < 0 ||
        PyModule_AddIntConstant(module, "LAID_MAX_VALUES", LAID_MAX_VALUES) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
