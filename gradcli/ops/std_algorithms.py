"""libstdc++'s sorting algorithms (bits/stl_algo.h, bits/stl_heap.h), step for step, on a Python
list with the comparator `lt` PyTorch's CPU kernels pass: std::sort, std::partial_sort and
std::nth_element. Which of several equal values lands where is decided by these steps, and
PyTorch reports it (the indices of ties in sort, topk, mode and multinomial)."""
from __future__ import annotations


def _move_median_to_first(a, result, x, y, z, lt):
    if lt(a[x], a[y]):
        m = y if lt(a[y], a[z]) else z if lt(a[x], a[z]) else x
    else:
        m = x if lt(a[x], a[z]) else z if lt(a[y], a[z]) else y
    a[result], a[m] = a[m], a[result]


def _unguarded_partition(a, first, last, pivot, lt):
    while True:
        while lt(a[first], a[pivot]):
            first += 1
        last -= 1
        while lt(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a, first, last, lt):
    _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, lt)
    return _unguarded_partition(a, first + 1, last, first, lt)


def _adjust_heap(a, first, hole, n, value, lt):
    top = child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if lt(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n & 1 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2                    # __push_heap
    while hole > top and lt(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a, first, middle, last, lt):
    n = middle - first
    if n >= 2:                                  # __make_heap
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, n, a[first + parent], lt)
    for i in range(middle, last):
        if lt(a[i], a[first]):                  # __pop_heap(first, middle, i)
            value, a[i] = a[i], a[first]
            _adjust_heap(a, first, 0, n, value, lt)


def partial_sort(a, first, middle, last, lt):
    _heap_select(a, first, middle, last, lt)
    while middle - first > 1:                   # __sort_heap
        middle -= 1
        value, a[middle] = a[middle], a[first]
        _adjust_heap(a, first, 0, middle - first, value, lt)


def _unguarded_linear_insert(a, last, lt):
    v = a[last]
    while lt(v, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = v


def _insertion_sort(a, first, last, lt):
    for i in range(first + 1, last):
        if lt(a[i], a[first]):
            v = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = v
        else:
            _unguarded_linear_insert(a, i, lt)


def _introsort_loop(a, first, last, depth, lt):
    while last - first > 16:
        if depth == 0:
            partial_sort(a, first, last, last, lt)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, lt)
        _introsort_loop(a, cut, last, depth, lt)
        last = cut


def std_sort(a, first, last, lt):
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * ((last - first).bit_length() - 1), lt)
    if last - first > 16:                       # __final_insertion_sort
        _insertion_sort(a, first, first + 16, lt)
        for i in range(first + 16, last):
            _unguarded_linear_insert(a, i, lt)
    else:
        _insertion_sort(a, first, last, lt)


def nth_element(a, first, nth, last, lt):
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:                     # __introselect
        if depth == 0:
            _heap_select(a, first, nth + 1, last, lt)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, lt)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, lt)
