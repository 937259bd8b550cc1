// Built against an installed Sluice (find_package(Sluice)), using only <sluice/pipeline.h>: reads
// the JPEGs of a folder, decodes, resizes to 64x48, normalizes to CHW float, and checks the batch.
#include <sluice/pipeline.h>

#include <cmath>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sluice_install_app IMAGE_DIR\n");
    return 2;
  }
  try {
    sluice::PipelineOptions opts;
    opts.batch_size = 4;
    opts.num_threads = 2;
    opts.seed = 7;
    sluice::Pipeline pipe(opts);
    auto r = pipe.AddOperator(sluice::OperatorDef("readers.file")
                                  .Name("Reader")
                                  .Arg("files", std::vector<std::string>{std::string(argv[1]) + "/photo_500x375.jpg",
                                                                         std::string(argv[1]) + "/gray.jpg"}));
    auto img = pipe.AddOperator(sluice::OperatorDef("decoders.image").Input(r[0]))[0];
    auto small = pipe.AddOperator(sluice::OperatorDef("resize").Input(img).Arg("size", std::vector<double>{48, 64}))[0];
    auto out = pipe.AddOperator(sluice::OperatorDef("crop_mirror_normalize")
                                    .Input(small)
                                    .Arg("mean", std::vector<double>{128.0})
                                    .Arg("std", std::vector<double>{64.0}))[0];
    // Argument errors are raised where the operator is added, naming the argument.
    try {
      pipe.AddOperator(sluice::OperatorDef("resize").Input(img).Arg("interp_type", int64_t{999}));
      std::fprintf(stderr, "an invalid interp_type was accepted\n");
      return 1;
    } catch (const sluice::Error& e) {
      if (std::string(e.what()).find("interp_type") == std::string::npos) {
        std::fprintf(stderr, "the error does not name the argument: %s\n", e.what());
        return 1;
      }
    }

    pipe.SetOutputs({out, r[1]});
    pipe.Build();

    for (int it = 0; it < 2; ++it) {
      std::vector<sluice::Batch> batch = pipe.Run();
      const sluice::Batch& x = batch[0];
      if (x.num_samples() != 4 || x.dtype() != sluice::DType::kFloat32 || x.layout() != "CHW") {
        std::fprintf(stderr, "unexpected batch: %d samples, layout %s\n", x.num_samples(), x.layout().c_str());
        return 1;
      }
      for (int i = 0; i < x.num_samples(); ++i) {
        if (x.shape(i) != sluice::TensorShape{3, 48, 64}) {
          std::fprintf(stderr, "sample %d has shape %s\n", i, x.shape(i).ToString().c_str());
          return 1;
        }
        const float* p = static_cast<const float*>(x.data(i));
        double sum = 0;
        for (int k = 0; k < 3 * 48 * 64; ++k) {
          if (!std::isfinite(p[k]) || p[k] < -2.01f || p[k] > 2.0f) {
            std::fprintf(stderr, "sample %d element %d = %f is not a normalized pixel\n", i, k, p[k]);
            return 1;
          }
          sum += p[k];
        }
        std::printf("batch %d sample %d: %s, mean %.4f, from %s\n", it, i, x.shape(i).ToString().c_str(),
                    sum / (3 * 48 * 64), x.source(i).ToString().c_str());
      }
    }
    std::printf("sluice_install_app: OK\n");
    return 0;
  } catch (const sluice::Error& e) {
    std::fprintf(stderr, "sluice error: %s\n", e.what());
    return 1;
  }
}
