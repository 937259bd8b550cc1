#include "readers/storage/s3_list.h"

#include <charconv>

#include <sluice/error.h>

namespace sluice {

namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The text of the first <tag>...</tag> in [from, end) of xml, or npos-marked empty; *next is set
// past the closing tag.
bool FindElement(std::string_view xml, std::string_view tag, size_t from, size_t end, std::string_view* text,
                 size_t* next, const std::string& what) {
  std::string open = "<", close = "</";
  open.append(tag).append(">");
  close.append(tag).append(">");
  const size_t b = xml.substr(0, end).find(open, from);
  if (b == std::string_view::npos) return false;
  const size_t e = xml.substr(0, end).find(close, b + open.size());
  if (e == std::string_view::npos) throw Error("malformed ListObjectsV2 answer from " + what + ": <" + std::string(tag) + "> is not closed");
  *text = xml.substr(b + open.size(), e - b - open.size());
  *next = e + close.size();
  return true;
}

}  // namespace

std::string XmlUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) throw Error("malformed XML character reference");
    const std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") out += '&';
    else if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() >= 2 && ent[0] == '#') {
      const bool hex = ent[1] == 'x' || ent[1] == 'X';
      const std::string_view digits = ent.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || cp == 0 || cp > 0x10FFFF ||
          (cp >= 0xD800 && cp <= 0xDFFF))
        throw Error("malformed XML character reference '&" + std::string(ent) + ";'");
      AppendUtf8(cp, &out);
    } else {
      throw Error("unknown XML entity '&" + std::string(ent) + ";'");
    }
    i = semi;
  }
  return out;
}

S3ListPage ParseListObjectsV2(std::string_view xml, const std::string& what) {
  if (xml.find("<ListBucketResult") == std::string_view::npos)
    throw Error("the answer from " + what + " is not a ListObjectsV2 result (no <ListBucketResult>)");
  S3ListPage page;
  std::string_view text;
  size_t next = 0, pos = 0;
  // <Contents> blocks; the page's own fields are outside them.
  std::string outside;
  while (true) {
    size_t after = 0;
    std::string_view contents;
    if (!FindElement(xml, "Contents", pos, xml.size(), &contents, &after, what)) {
      outside.append(xml.substr(pos));
      break;
    }
    outside.append(xml.substr(pos, xml.find("<Contents>", pos) - pos));
    S3Object o;
    std::string_view key, size;
    if (!FindElement(contents, "Key", 0, contents.size(), &key, &next, what))
      throw Error("malformed ListObjectsV2 answer from " + what + ": a <Contents> without <Key>");
    try {
      o.key = XmlUnescape(key);
    } catch (const Error& e) {
      throw Error("malformed ListObjectsV2 answer from " + what + ": " + e.message());
    }
    if (FindElement(contents, "Size", 0, contents.size(), &size, &next, what)) {
      auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), o.size);
      if (size.empty() || ec != std::errc() || p != size.data() + size.size() || o.size < 0)
        throw Error("malformed ListObjectsV2 answer from " + what + ": bad <Size> '" + std::string(size.substr(0, 40)) + "'");
    }
    page.objects.push_back(std::move(o));
    pos = after;
  }
  if (FindElement(outside, "IsTruncated", 0, outside.size(), &text, &next, what)) page.truncated = text == "true";
  if (FindElement(outside, "NextContinuationToken", 0, outside.size(), &text, &next, what)) {
    try {
      page.next_token = XmlUnescape(text);
    } catch (const Error& e) {
      throw Error("malformed ListObjectsV2 answer from " + what + ": " + e.message());
    }
  }
  if (page.truncated && page.next_token.empty())
    throw Error("malformed ListObjectsV2 answer from " + what + ": truncated without a continuation token");
  return page;
}

}  // namespace sluice
