/* layoutd_icu.h — the few ICU calls layoutd makes, under stable names.
 *
 * ICU renames every C symbol with its version (ubrk_open becomes ubrk_open_72), through
 * macros Swift cannot see. This shim re-exports what the engine needs as plain functions.
 * Text is UTF-16 (ICU's UChar). Every function that can fail returns an ICU UErrorCode
 * (0 is success, > 0 an error, < 0 a warning); nothing here allocates memory the caller
 * must free except the break iterators, which `ldicu_brk_close` frees.
 */
#ifndef LAYOUTD_ICU_H
#define LAYOUTD_ICU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of break iterator, as ICU's UBreakIteratorType. */
enum {
  LDICU_BREAK_CHARACTER = 0,
  LDICU_BREAK_WORD = 1,
  LDICU_BREAK_LINE = 2,
  LDICU_BREAK_SENTENCE = 3
};

/** An ICU break iterator (UBreakIterator). Owned by whoever opened it. */
typedef struct ldicu_break ldicu_break;

/** Opens a break iterator of `kind` for `locale` ("" for the root locale), with no text.
 *  Returns NULL and sets *status on failure. Free with ldicu_brk_close. */
ldicu_break *ldicu_brk_open(int kind, const char *locale, int32_t *status);
void ldicu_brk_close(ldicu_break *iterator);

/** Points the iterator at `text` (not copied: it must outlive the iterator's use). */
int32_t ldicu_brk_set_text(ldicu_break *iterator, const uint16_t *text, int32_t length);

/** Writes every boundary of the current text, 0 and the end included, into `offsets`
 *  (and, when `statuses` is not NULL, each boundary's rule status: for line breaks,
 *  >= 100 marks a mandatory break). `capacity` must be at least length + 1.
 *  Returns the number of boundaries written. */
int32_t ldicu_brk_collect(ldicu_break *iterator, int32_t *offsets, int32_t *statuses,
                          int32_t capacity);

/** The next boundary of the current text after the iterator's position (0 right after
 *  `ldicu_brk_set_text`), or -1 at the end. Each step starts afresh at the boundary before. */
int32_t ldicu_brk_next(ldicu_break *iterator);

/** What a UTF-16 unit (a BMP code point; a surrogate is none of these) is to the line
 *  breaker, as bits: LDICU_LINE_SPACED for a letter or digit whose line-break class is AL,
 *  HL, NU, H2, H3 or SA (between one and spaces, on either side, only UAX #14's LB18,
 *  break after spaces, decides); LDICU_LINE_IDEOGRAPH for one of class ID (between two,
 *  only LB31, break everywhere else, decides); LDICU_LINE_MARK for what rule LB9 attaches
 *  to the character before it (class CM and ZWJ, and the marks of class SA, which ICU's
 *  rules take as CM); LDICU_LINE_COMPLEX for any of class SA (ICU finds the breaks between
 *  those with a dictionary); LDICU_LINE_ALPHABETIC for a letter or digit of class AL, HL
 *  or NU (between two, and with marks after them, no rule breaks: LB9, LB23, LB25, LB28).
 *  Thread-safe; works out 64 code points at a time on first use. */
enum {
  LDICU_LINE_SPACED = 1,
  LDICU_LINE_IDEOGRAPH = 2,
  LDICU_LINE_MARK = 4,
  LDICU_LINE_COMPLEX = 8,
  LDICU_LINE_ALPHABETIC = 16
};
uint32_t ldicu_line_kind(uint16_t unit);

/** The Unicode script (UScriptCode) of a code point; USCRIPT_COMMON is 0,
 *  USCRIPT_INHERITED is 1. */
int32_t ldicu_script(uint32_t codepoint);

/** Whether `script` is among the code point's Script_Extensions. */
int ldicu_has_script(uint32_t codepoint, int32_t script);

/** ISO 15924 four-letter code of a script (e.g. "Arab"); "Zyyy" when unknown. */
const char *ldicu_script_tag(int32_t script);

/** One paragraph's bidi resolution (a UBiDi object plus one for its lines). Owned by
 *  whoever opened it; free with ldicu_bidi_close. */
typedef struct ldicu_bidi ldicu_bidi;

/** Resolves the bidi levels of one paragraph (UAX #9 up to I2). `paragraph_level`: 0 ltr,
 *  1 rtl, 0xFE (UBIDI_DEFAULT_LTR) auto with ltr default. `text` is not copied: it must
 *  outlive the returned object. Returns NULL and sets *status on failure. */
ldicu_bidi *ldicu_bidi_open(const uint16_t *text, int32_t length, uint8_t paragraph_level,
                            int32_t *status);
void ldicu_bidi_close(ldicu_bidi *bidi);

/** The resolved paragraph level (0 or 1). */
uint8_t ldicu_bidi_paragraph_level(ldicu_bidi *bidi);

/** Writes the paragraph's levels, one per UTF-16 unit. Returns a UErrorCode. */
int32_t ldicu_bidi_levels(ldicu_bidi *bidi, uint8_t *levels);

/** The line `start..<limit` (paragraph offsets) in visual order (UAX #9 L1–L2): writes each
 *  visual run's logical start (paragraph offset), length and level, left to right, and, when
 *  `line_levels` is not NULL, the line's levels after L1 (limit - start of them).
 *  Returns the number of runs, or -1 with *status set; `capacity` of limit - start suffices. */
int32_t ldicu_bidi_line(ldicu_bidi *bidi, int32_t start, int32_t limit, int32_t *run_starts,
                        int32_t *run_lengths, uint8_t *run_levels, int32_t capacity,
                        uint8_t *line_levels, int32_t *status);

/** What grapheme segmentation needs of `codepoint`: its Grapheme_Cluster_Break property
 *  (ICU's UGraphemeClusterBreak value, 0–17) in the low five bits; 0x80 when it is
 *  Extended_Pictographic; and for the Indic conjunct rule ICU's root rules add (CLDR's
 *  "$LinkingConsonant $ExtCccZwj* $Virama $ExtCccZwj* × $LinkingConsonant", scripts
 *  Gujarati, Telugu, Malayalam, Oriya, Bengali, Devanagari): 0x100 a virama, 0x200 a linking
 *  consonant, 0x400 an Extend with a combining class other than 0, or ZWJ. A lone
 *  surrogate code unit passed as a code point is Control, as ICU has it. */
uint16_t ldicu_grapheme_class(uint32_t codepoint);

/** 1 when `codepoint`'s Bidi_Class can make a left-to-right paragraph's levels other than 0
 *  (R, AL, AN, or an explicit embedding, override or isolate control), else 0. */
int ldicu_bidi_may_raise(uint32_t codepoint);
/** 1 for a strong right-to-left character (Bidi_Class R or AL); 2 for one that can give a
 *  right-to-left paragraph a level other than 1 (L, EN, AN, or an explicit embedding,
 *  override or isolate control); 0 for the rest (neutrals, marks, separators). */
int ldicu_bidi_rtl_class(uint32_t codepoint);

/** Writes the Unicode version ICU implements, as "15.0", into `out` (at least 20 bytes). */
void ldicu_unicode_version(char *out);

/** Writes the version of the ICU library in use, as "72.1", into `out` (at least 20 bytes). */
void ldicu_icu_version(char *out);

#ifdef __cplusplus
}
#endif
#endif
