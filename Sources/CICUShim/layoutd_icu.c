/* Stable-name wrappers over ICU; see include/layoutd_icu.h. */
#include "layoutd_icu.h"

#include <unicode/ubidi.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/uversion.h>

ldicu_break *ldicu_brk_open(int kind, const char *locale, int32_t *status) {
  UErrorCode err = U_ZERO_ERROR;
  UBreakIterator *it = ubrk_open((UBreakIteratorType)kind, locale, NULL, 0, &err);
  *status = (int32_t)err;
  if (U_FAILURE(err)) {
    if (it) ubrk_close(it);
    return NULL;
  }
  return (ldicu_break *)it;
}

void ldicu_brk_close(ldicu_break *iterator) {
  if (iterator) ubrk_close((UBreakIterator *)iterator);
}

int32_t ldicu_brk_set_text(ldicu_break *iterator, const uint16_t *text, int32_t length) {
  UErrorCode err = U_ZERO_ERROR;
  ubrk_setText((UBreakIterator *)iterator, (const UChar *)text, length, &err);
  return (int32_t)err;
}

int32_t ldicu_brk_collect(ldicu_break *iterator, int32_t *offsets, int32_t *statuses,
                          int32_t capacity) {
  UBreakIterator *it = (UBreakIterator *)iterator;
  int32_t n = 0;
  for (int32_t p = ubrk_first(it); p != UBRK_DONE && n < capacity; p = ubrk_next(it)) {
    offsets[n] = p;
    if (statuses) statuses[n] = ubrk_getRuleStatus(it);
    n++;
  }
  return n;
}

int32_t ldicu_script(uint32_t codepoint) {
  UErrorCode err = U_ZERO_ERROR;
  UScriptCode sc = uscript_getScript((UChar32)codepoint, &err);
  return U_FAILURE(err) ? USCRIPT_UNKNOWN : (int32_t)sc;
}

int ldicu_has_script(uint32_t codepoint, int32_t script) {
  return uscript_hasScript((UChar32)codepoint, (UScriptCode)script) ? 1 : 0;
}

const char *ldicu_script_tag(int32_t script) {
  const char *name = uscript_getShortName((UScriptCode)script);
  return name ? name : "Zyyy";
}

int32_t ldicu_bidi_levels(const uint16_t *text, int32_t length, uint8_t paragraph_level,
                          uint8_t *levels, uint8_t *resolved_level) {
  UErrorCode err = U_ZERO_ERROR;
  UBiDi *bidi = ubidi_openSized(length, 0, &err);
  if (U_FAILURE(err)) return (int32_t)err;
  ubidi_setPara(bidi, (const UChar *)text, length, paragraph_level, NULL, &err);
  if (U_SUCCESS(err)) {
    const UBiDiLevel *l = ubidi_getLevels(bidi, &err);
    if (U_SUCCESS(err)) {
      for (int32_t i = 0; i < length; i++) levels[i] = l[i];
      *resolved_level = ubidi_getParaLevel(bidi);
    }
  }
  ubidi_close(bidi);
  return (int32_t)err;
}

void ldicu_unicode_version(char *out) {
  UVersionInfo v;
  u_getUnicodeVersion(v);
  u_versionToString(v, out);
}
