// Builds tar archives for the tests: with GNU tar or Python's tarfile from a staging folder (real
// writers), or header by header in C++ (crafted and corrupted archives).
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include "readers_test_util.h"

namespace sluice::testing {

struct StagedMember {
  std::string name;     // path inside the archive
  std::string content;  // file content (regular files)
  enum Kind { kFile, kDir, kSymlink } kind = kFile;
  std::string target;   // symlink target
};

// Writes the members into `stage` (created) and the member list (in order) to `list`.
inline void Stage(const std::string& stage, const std::vector<StagedMember>& members, const std::string& list) {
  MakeDirs(stage);
  std::string names;
  for (const auto& m : members) {
    const std::string p = stage + "/" + m.name;
    if (m.kind == StagedMember::kDir) {
      MakeDirs(p);
    } else if (m.kind == StagedMember::kSymlink) {
      MakeDirs(p.substr(0, p.rfind('/')));
      ASSERT_EQ(0, ::symlink(m.target.c_str(), p.c_str())) << p;
    } else {
      WriteFile(p, m.content);
    }
    names += m.name + "\n";
  }
  WriteFile(list, names);
}

// GNU tar with --format=gnu|posix|ustar|v7; members in the given order, fixed metadata.
inline void GnuTar(const std::string& tar, const std::string& format, const std::string& stage, const std::string& list) {
  const std::string cmd = "tar --format=" + format + " --owner=0 --group=0 --numeric-owner --mtime=@1600000000 "
                          "--no-recursion -cf '" + tar + "' -C '" + stage + "' -T '" + list + "' 2>/dev/null";
  ASSERT_EQ(0, Sh(cmd)) << cmd;
}

// Python tarfile with format PAX_FORMAT | GNU_FORMAT | USTAR_FORMAT.
inline void PythonTar(const std::string& dir, const std::string& tar, const std::string& format,
                      const std::string& stage, const std::string& list) {
  const std::string script =
      "import sys, tarfile\n"
      "tar, fmt, stage, lst = sys.argv[1:5]\n"
      "names = [l for l in open(lst).read().split('\\n') if l]\n"
      "with tarfile.open(tar, 'w', format=getattr(tarfile, fmt)) as t:\n"
      "    for n in names:\n"
      "        ti = t.gettarinfo(stage + '/' + n, arcname=n)\n"
      "        ti.mtime = 1600000000; ti.uid = ti.gid = 0; ti.uname = ti.gname = ''\n"
      "        if ti.isreg():\n"
      "            with open(stage + '/' + n, 'rb') as f: t.addfile(ti, f)\n"
      "        else:\n"
      "            t.addfile(ti)\n";
  ASSERT_EQ(0, RunPython(dir, script, "'" + tar + "' " + format + " '" + stage + "' '" + list + "'"));
}

// The independent index writer: Python tarfile's member offsets, grouped by the WebDataset rules.
inline std::string PythonIndex(const std::string& dir, const std::string& tar) {
  const std::string out = dir + "/py_index.idx";
  const std::string script =
      "import sys, tarfile\n"
      "def split(name):\n"
      "    slash = name.rfind('/')\n"
      "    base = name[slash + 1:]\n"
      "    if not base or base[0] == '.': return None\n"
      "    dot = name.find('.', slash + 1)\n"
      "    if dot < 0: return None\n"
      "    return name[:dot], name[dot + 1:]\n"
      "samples = []\n"
      "with tarfile.open(sys.argv[1]) as t:\n"
      "    for m in t.getmembers():\n"
      "        if not m.isreg(): continue\n"
      "        s = split(m.name)\n"
      "        if s is None: continue\n"
      "        if not samples or samples[-1][0] != s[0]: samples.append((s[0], []))\n"
      "        samples[-1][1].append('%s %d %d %s' % (s[1], m.offset_data, m.size, m.name))\n"
      "with open(sys.argv[2], 'w') as f:\n"
      "    f.write('v1.2 %d\\n' % len(samples))\n"
      "    for _, comps in samples: f.write(' '.join(comps) + '\\n')\n";
  EXPECT_EQ(0, RunPython(dir, script, "'" + tar + "' '" + out + "'"));
  return ReadFile(out);
}

// A crafted ustar header (checksum filled in). `size_field` overrides the octal size (e.g. base-256).
inline std::string TarHeader(const std::string& name, int64_t size, char type = '0',
                             const std::string* size_field = nullptr, const std::string& magic = std::string("ustar\0" "00", 8)) {
  std::string h(512, '\0');
  std::memcpy(&h[0], name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(&h[100], 8, "%07o", 0644);
  std::snprintf(&h[108], 8, "%07o", 0);
  std::snprintf(&h[116], 8, "%07o", 0);
  if (size_field) std::memcpy(&h[124], size_field->data(), 12);
  else std::snprintf(&h[124], 12, "%011llo", static_cast<unsigned long long>(size));
  std::snprintf(&h[136], 12, "%011o", 0);
  h[156] = type;
  std::memcpy(&h[257], magic.data(), std::min<size_t>(magic.size(), 8));
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(&h[148], 7, "%06o", sum);
  h[155] = ' ';
  return h;
}

inline std::string Padded(const std::string& data) {
  std::string s = data;
  s.resize((s.size() + 511) / 512 * 512, '\0');
  return s;
}

// header + data + padding
inline std::string TarMember(const std::string& name, const std::string& data, char type = '0') {
  return TarHeader(name, static_cast<int64_t>(data.size()), type) + Padded(data);
}

inline std::string TarEnd() { return std::string(1024, '\0'); }

}  // namespace sluice::testing
