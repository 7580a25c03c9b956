// Pins down that what parse_bounded_json charges covers the heap a document really takes at its
// peak (vector growth included), counted by this executable's own global operator new.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "workloads/bounded_json.h"

namespace {

// Live heap through operator new, as malloc's chunks (usable size plus its 8-byte header), and
// its peak since the last reset. The whole executable allocates through these; only the tests
// below read them.
std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};

void count_allocation(void* p) {
  const std::size_t bytes = malloc_usable_size(p) + 8;
  const std::size_t live = g_live.fetch_add(bytes) + bytes;
  std::size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
}

void* allocate(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);  // NOLINT(cppcoreguidelines-no-malloc)
  if (p == nullptr) throw std::bad_alloc();
  count_allocation(p);
  return p;
}

void deallocate(void* p) noexcept {
  if (p == nullptr) return;
  g_live.fetch_sub(malloc_usable_size(p) + 8);
  std::free(p);  // NOLINT(cppcoreguidelines-no-malloc)
}

}  // namespace

// NOLINTBEGIN(misc-new-delete-overloads): the replaceable global forms, all of them
void* operator new(std::size_t n) {
  return allocate(n);
}
void* operator new[](std::size_t n) {
  return allocate(n);
}
void operator delete(void* p) noexcept {
  deallocate(p);
}
void operator delete[](void* p) noexcept {
  deallocate(p);
}
void operator delete(void* p, std::size_t /*n*/) noexcept {
  deallocate(p);
}
void operator delete[](void* p, std::size_t /*n*/) noexcept {
  deallocate(p);
}
// NOLINTEND(misc-new-delete-overloads)

namespace slicelab {
namespace {

// A request body as the extender receives it: the densest document per byte (empty objects)
// where node names belong.
std::string empty_objects_body(std::size_t objects) {
  std::string body = R"({"Pod":{},"NodeNames":[)";
  body.reserve(body.size() + 3 * objects + 2);
  for (std::size_t i = 0; i + 1 < objects; ++i) body += "{},";
  body += "{}]}";
  return body;
}

// One object of `members` members with short keys and number values: nlohmann's destructor
// moves each member's value onto its own vector too.
std::string many_members_body(std::size_t members) {
  std::string body = R"({"Pod":{},"NodeNames":[],"Extra":{)";
  for (std::size_t i = 0; i < members; ++i) {
    if (i > 0) body += ',';
    body += "\"k" + std::to_string(i) + "\":0";
  }
  body += "}}";
  return body;
}

struct Peak {
  std::size_t heap = 0;     // the most the parse held at once over what was live before it
  std::size_t charged = 0;  // what it charged
  bool refused = false;     // the budget ran out
};

Peak parse_measured(const std::string& text, std::size_t budget_bytes, bool taps_on) {
  MemoryBudget budget(budget_bytes);
  Peak out;
  {
    BudgetCharge charge(budget);
    JsonLimits limits;
    limits.charge = &charge;
    JsonStringArrayTaps taps;
    if (taps_on) taps.keys = {"NodeNames"};
    const std::size_t before = g_live.load();
    g_peak.store(before);
    try {
      const nlohmann::json doc = parse_bounded_json(text, limits, taps);
      out.refused = false;
    } catch (const JsonLimitError& e) {
      EXPECT_EQ(e.failure(), JsonFailure::kTooLarge) << e.what();
      out.refused = true;
    }
    out.heap = g_peak.load() - before;
    out.charged = charge.bytes();
  }
  return out;
}

TEST(BoundedJsonHeap, PeakMemoryOfAnArrayOfEmptyObjectsStaysWithinItsCharge) {
#ifdef SLICELAB_SANITIZED
  GTEST_SKIP() << "sanitizers change the allocator's chunk sizes: measured in the plain build";
#endif
  // 1.1 million empty objects (3.3 MiB of text), just past a power of two, where the array's
  // vector and nlohmann's destructor hold the most per element: refused by 16 and 64 MiB budgets
  // at different moments of the array's growth, parsed whole (and destroyed) under 1 GiB; with
  // and without the taps (the fast path and the ordinary parse).
  const std::string text = empty_objects_body(1'100'000);
  for (const bool taps_on : {true, false}) {
    for (const std::size_t budget_mib : {16, 64, 1024}) {
      const Peak p = parse_measured(text, budget_mib << 20, taps_on);
      SCOPED_TRACE(testing::Message()
                   << "budget " << budget_mib << " MiB, taps " << taps_on << ": peak heap "
                   << p.heap << " B, charged " << p.charged << " B");
      std::printf("budget %zu MiB, taps %d: peak heap %.1f MiB, charged %.1f MiB\n", budget_mib,
                  taps_on ? 1 : 0, static_cast<double>(p.heap) / (1 << 20),
                  static_cast<double>(p.charged) / (1 << 20));
      EXPECT_EQ(p.refused, budget_mib < 1024);
      EXPECT_GT(p.charged, 0U);
      // The estimate's own error (malloc's rounding) and nlohmann's parser state: 1 MiB.
      EXPECT_LE(p.heap, p.charged + (std::size_t{1} << 20));
    }
  }
}

TEST(BoundedJsonHeap, PeakMemoryOfAnObjectOfManyMembersStaysWithinItsCharge) {
#ifdef SLICELAB_SANITIZED
  GTEST_SKIP() << "sanitizers change the allocator's chunk sizes: measured in the plain build";
#endif
  // 1.1 million members (about 11 MiB of text): refused by a 16 MiB budget, parsed whole (and
  // destroyed) under 1 GiB.
  const std::string text = many_members_body(1'100'000);
  for (const std::size_t budget_mib : {16, 1024}) {
    const Peak p = parse_measured(text, budget_mib << 20, true);
    std::printf("members, budget %zu MiB: peak heap %.1f MiB, charged %.1f MiB\n", budget_mib,
                static_cast<double>(p.heap) / (1 << 20),
                static_cast<double>(p.charged) / (1 << 20));
    EXPECT_EQ(p.refused, budget_mib < 1024);
    EXPECT_LE(p.heap, p.charged + (std::size_t{1} << 20));
  }
}

}  // namespace
}  // namespace slicelab
