/* Stable-name wrappers over ICU; see include/layoutd_icu.h. */
#include "layoutd_icu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

int32_t ldicu_brk_next(ldicu_break *iterator) {
  int32_t p = ubrk_next((UBreakIterator *)iterator);
  return p == UBRK_DONE ? -1 : p;
}

/* `ldicu_line_kind`'s answers, worked out per block of 64 BMP code points on first use: five
 * masks per block (LDICU_LINE_* order) and whether the block is done. Blocks may be worked
 * out by two threads at once: both store the same values. */
static _Atomic uint64_t ldicu_line_masks[1024][5];
static _Atomic uint8_t ldicu_line_ready[1024];

static void ldicu_line_fill(uint32_t block) {
  uint64_t masks[5] = {0, 0, 0, 0, 0};
  for (uint32_t i = 0; i < 64; i++) {
    UChar32 c = (UChar32)(block * 64 + i);
    uint64_t bit = (uint64_t)1 << i;
    int type = u_charType(c);
    int lb = u_getIntPropertyValue(c, UCHAR_LINE_BREAK);
    int letter = type == U_UPPERCASE_LETTER || type == U_LOWERCASE_LETTER || type == U_TITLECASE_LETTER ||
                 type == U_OTHER_LETTER || type == U_DECIMAL_DIGIT_NUMBER;
    int mark = type == U_NON_SPACING_MARK || type == U_COMBINING_SPACING_MARK;
    if (lb == U_LB_COMPLEX_CONTEXT) masks[3] |= bit;
    if (lb == U_LB_COMBINING_MARK || lb == U_LB_ZWJ || (lb == U_LB_COMPLEX_CONTEXT && mark)) {
      masks[2] |= bit;
    } else if (letter) {
      int alphabetic = lb == U_LB_ALPHABETIC || lb == U_LB_HEBREW_LETTER || lb == U_LB_NUMERIC;
      if (alphabetic) masks[4] |= bit;
      if (alphabetic || lb == U_LB_H2 || lb == U_LB_H3 || lb == U_LB_COMPLEX_CONTEXT)
        masks[0] |= bit;
      else if (lb == U_LB_IDEOGRAPHIC)
        masks[1] |= bit;
    }
  }
  for (int k = 0; k < 5; k++) atomic_store_explicit(&ldicu_line_masks[block][k], masks[k], memory_order_relaxed);
  atomic_store_explicit(&ldicu_line_ready[block], 1, memory_order_release);
}

uint32_t ldicu_line_kind(uint16_t unit) {
  uint32_t block = unit >> 6;
  if (!atomic_load_explicit(&ldicu_line_ready[block], memory_order_acquire)) ldicu_line_fill(block);
  uint32_t kind = 0;
  for (int k = 0; k < 5; k++) {
    if (atomic_load_explicit(&ldicu_line_masks[block][k], memory_order_relaxed) >> (unit & 63) & 1) kind |= 1u << k;
  }
  return kind;
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

struct ldicu_bidi {
  UBiDi *paragraph;
  UBiDi *line;
};

ldicu_bidi *ldicu_bidi_open(const uint16_t *text, int32_t length, uint8_t paragraph_level,
                            int32_t *status) {
  UErrorCode err = U_ZERO_ERROR;
  ldicu_bidi *b = calloc(1, sizeof *b);
  if (!b) { *status = U_MEMORY_ALLOCATION_ERROR; return NULL; }
  b->paragraph = ubidi_openSized(length, 0, &err);
  if (U_SUCCESS(err)) b->line = ubidi_openSized(length, 0, &err);
  if (U_SUCCESS(err)) ubidi_setPara(b->paragraph, (const UChar *)text, length, paragraph_level, NULL, &err);
  *status = (int32_t)err;
  if (U_FAILURE(err)) { ldicu_bidi_close(b); return NULL; }
  return b;
}

void ldicu_bidi_close(ldicu_bidi *b) {
  if (!b) return;
  if (b->line) ubidi_close(b->line);
  if (b->paragraph) ubidi_close(b->paragraph);
  free(b);
}

uint8_t ldicu_bidi_paragraph_level(ldicu_bidi *b) { return ubidi_getParaLevel(b->paragraph); }

int32_t ldicu_bidi_levels(ldicu_bidi *b, uint8_t *levels) {
  UErrorCode err = U_ZERO_ERROR;
  int32_t n = ubidi_getLength(b->paragraph);
  if (n == 0) return 0;
  const UBiDiLevel *l = ubidi_getLevels(b->paragraph, &err);
  if (U_SUCCESS(err)) memcpy(levels, l, (size_t)n);
  return (int32_t)err;
}

int32_t ldicu_bidi_line(ldicu_bidi *b, int32_t start, int32_t limit, int32_t *run_starts,
                        int32_t *run_lengths, uint8_t *run_levels, int32_t capacity,
                        uint8_t *line_levels, int32_t *status) {
  UErrorCode err = U_ZERO_ERROR;
  *status = 0;
  if (limit <= start) return 0;
  ubidi_setLine(b->paragraph, start, limit, b->line, &err);
  int32_t count = U_SUCCESS(err) ? ubidi_countRuns(b->line, &err) : 0;
  if (U_FAILURE(err) || count > capacity) {
    *status = U_FAILURE(err) ? (int32_t)err : (int32_t)U_BUFFER_OVERFLOW_ERROR;
    return -1;
  }
  for (int32_t i = 0; i < count; i++) {
    int32_t logical = 0, length = 0;
    ubidi_getVisualRun(b->line, i, &logical, &length);
    run_starts[i] = start + logical;
    run_lengths[i] = length;
    run_levels[i] = ubidi_getLevelAt(b->line, logical);
  }
  if (line_levels) {
    const UBiDiLevel *l = ubidi_getLevels(b->line, &err);
    if (U_FAILURE(err)) { *status = (int32_t)err; return -1; }
    memcpy(line_levels, l, (size_t)(limit - start));
  }
  return count;
}

void ldicu_unicode_version(char *out) {
  UVersionInfo v;
  u_getUnicodeVersion(v);
  u_versionToString(v, out);
}

void ldicu_icu_version(char *out) {
  UVersionInfo v;
  u_getVersion(v);
  u_versionToString(v, out);
}

uint16_t ldicu_grapheme_class(uint32_t codepoint) {
  UChar32 c = (UChar32)codepoint;
  int32_t gcb = u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK);
  uint16_t result = (uint16_t)(gcb & 0x1F);
  if (u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC)) result |= 0x80;
  UErrorCode err = U_ZERO_ERROR;
  UScriptCode script = uscript_getScript(c, &err);
  if (U_SUCCESS(err) && (script == USCRIPT_GUJARATI || script == USCRIPT_TELUGU || script == USCRIPT_MALAYALAM ||
                         script == USCRIPT_ORIYA || script == USCRIPT_BENGALI || script == USCRIPT_DEVANAGARI)) {
    int32_t category = u_getIntPropertyValue(c, UCHAR_INDIC_SYLLABIC_CATEGORY);
    if (category == U_INSC_VIRAMA) result |= 0x100;
    if (category == U_INSC_CONSONANT) result |= 0x200;
  }
  if ((gcb == U_GCB_EXTEND && u_getCombiningClass(c) != 0) || gcb == U_GCB_ZWJ) result |= 0x400;
  return result;
}

int ldicu_bidi_rtl_class(uint32_t codepoint) {
  switch (u_charDirection((UChar32)codepoint)) {
  case U_RIGHT_TO_LEFT: case U_RIGHT_TO_LEFT_ARABIC:
    return 1;
  case U_LEFT_TO_RIGHT: case U_EUROPEAN_NUMBER: case U_ARABIC_NUMBER:
  case U_LEFT_TO_RIGHT_EMBEDDING: case U_LEFT_TO_RIGHT_OVERRIDE:
  case U_RIGHT_TO_LEFT_EMBEDDING: case U_RIGHT_TO_LEFT_OVERRIDE: case U_POP_DIRECTIONAL_FORMAT:
  case U_LEFT_TO_RIGHT_ISOLATE: case U_RIGHT_TO_LEFT_ISOLATE: case U_FIRST_STRONG_ISOLATE:
  case U_POP_DIRECTIONAL_ISOLATE:
    return 2;
  default:
    return 0;
  }
}

int ldicu_bidi_may_raise(uint32_t codepoint) {
  switch (u_charDirection((UChar32)codepoint)) {
  case U_RIGHT_TO_LEFT: case U_RIGHT_TO_LEFT_ARABIC: case U_ARABIC_NUMBER:
  case U_LEFT_TO_RIGHT_EMBEDDING: case U_LEFT_TO_RIGHT_OVERRIDE:
  case U_RIGHT_TO_LEFT_EMBEDDING: case U_RIGHT_TO_LEFT_OVERRIDE: case U_POP_DIRECTIONAL_FORMAT:
  case U_LEFT_TO_RIGHT_ISOLATE: case U_RIGHT_TO_LEFT_ISOLATE: case U_FIRST_STRONG_ISOLATE:
  case U_POP_DIRECTIONAL_ISOLATE:
    return 1;
  default:
    return 0;
  }
}
