#include "operators/crop/spatial_layout.h"

#include "sluice/error.h"

namespace sluice {

SpatialLayout ResolveSpatialLayout(const TensorList& in, const std::string& op_name) {
  std::string layout = in.layout();
  if (layout.empty()) {
    const int nd = in.num_samples() ? in.shape(0).ndim() : 3;
    if (nd == 3) layout = "HWC";
    else if (nd == 4) layout = "DHWC";
    else {
      Error::Context c;
      c.op = op_name;
      throw Error("expected HWC images or DHWC volumes (3 or 4 dimensions), got shape " + in.shape(0).ToString(), c);
    }
  }
  if (layout != "HWC" && layout != "CHW" && layout != "DHWC" && layout != "CDHW") {
    Error::Context c;
    c.op = op_name;
    throw Error("expected the layout HWC, CHW, DHWC or CDHW, got '" + layout + "'", c);
  }
  SpatialLayout l{layout, layout[0] == 'C', layout.find('D') != std::string::npos};
  for (int i = 0; i < in.num_samples(); ++i)
    if (in.shape(i).ndim() != l.ndim()) {
      Error::Context c;
      c.op = op_name;
      throw Error("sample " + std::to_string(i) + " has shape " + in.shape(i).ToString() + ", not " +
                      std::to_string(l.ndim()) + " dimensions as its layout " + layout,
                  c);
    }
  return l;
}

SpatialExtents ExtentsOf(const SpatialLayout& l, const TensorShape& s) {
  SpatialExtents e;
  const int first = l.channels_first ? 1 : 0;
  if (l.volume) e.depth = s[first];
  const int h = first + (l.volume ? 1 : 0);
  e.height = s[h];
  e.width = s[h + 1];
  e.channels = l.channels_first ? s[0] : s[h + 2];
  return e;
}

TensorShape ShapeOf(const SpatialLayout& l, const SpatialExtents& e) {
  if (l.volume)
    return l.channels_first ? TensorShape{e.channels, e.depth, e.height, e.width}
                            : TensorShape{e.depth, e.height, e.width, e.channels};
  return l.channels_first ? TensorShape{e.channels, e.height, e.width} : TensorShape{e.height, e.width, e.channels};
}

}  // namespace sluice
