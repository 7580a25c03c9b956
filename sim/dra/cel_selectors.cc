#include "sim/dra/cel_selectors.h"

namespace slicelab {

CelExpression compile_selector(const DraCelText& text) {
  return CelExpression::compile(text.expression,
                                [&text](size_t offset) { return text.locate(offset); });
}

void check_dra_selectors(const DraObjects& objects) {
  for (const DraDeviceClass& c : objects.classes)
    for (const DraCelText& s : c.selectors) (void)compile_selector(s);
  for (const DraClaim& c : objects.claims)
    for (const DraRequest& r : c.spec.requests) {
      if (r.exactly)
        for (const DraCelText& s : r.exactly->selectors) (void)compile_selector(s);
      for (const DraSubRequest& sub : r.first_available)
        for (const DraCelText& s : sub.request.selectors) (void)compile_selector(s);
    }
}

}  // namespace slicelab
