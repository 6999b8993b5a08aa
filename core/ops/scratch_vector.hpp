// A std::vector whose resize leaves new elements uninitialised: for buffers that are written in
// full before they are read (quantized copies, GEMM operands) and that change size from one
// linear layer to the next, where value-initialising each growth would be a memset per call.
#pragma once
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace fp4lab {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no zeroing
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using ScratchVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace fp4lab
