/*
 * utf8.h — UTF-8 decoding and the compact Unicode classification the link detectors share.
 *
 * There is no ICU here, so "letter" is approximated: ASCII A–Z/a–z are letters, and every
 * non-ASCII code point is a letter EXCEPT
 *   - C1 controls U+0080–U+009F,
 *   - U+00A0–U+00BF (no-break space and Latin-1 punctuation/symbols; this also drops
 *     ª µ º and ¹ ² ³), U+00D7 ×, U+00F7 ÷,
 *   - U+1680 (Ogham space), general punctuation and spaces U+2000–U+206F (includes
 *     U+2028/9, U+202F, U+205F, zero-width characters, dashes, “ ” ‘ ’ …),
 *   - CJK symbols and punctuation U+3000–U+303F (、。「」『』【】〈〉《》 and U+3000 space),
 *   - CJK compatibility forms U+FE30–U+FE4F,
 *   - fullwidth/halfwidth punctuation U+FF01–U+FF0F, U+FF1A–U+FF20, U+FF3B–U+FF40,
 *     U+FF5B–U+FF65 (！＂＃…／ ：；＜＝＞？＠ ［＼］＾＿｀ ｛｜｝～｟｠｡｢｣､･),
 *   - U+FEFF and the specials U+FFF0–U+FFFF (so U+FFFD, which replaces bad input, is not).
 * Consequences: combining marks, Indic vowel signs and the like count as letters (good for
 * names in those scripts); so do emoji and most symbols outside the ranges above (an
 * emoji right after "@name" becomes part of the name).
 * Digits are ASCII 0–9 only (fullwidth digits count as letters).
 *
 * Everything here takes the text length and never reads at or past it: the host's text is
 * not NUL-terminated.
 */
#ifndef LINKS_UTF8_H
#define LINKS_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Decodes the code point starting at s[i] (requires i < n) and stores its byte length in
 * `*length`. Malformed or truncated sequences decode as U+FFFD one byte long. */
static inline uint32_t u8_decode(const unsigned char *s, size_t n, size_t i, size_t *length) {
    unsigned char c = s[i];
    if (c < 0x80) {
        *length = 1;
        return c;
    }
    size_t need;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1; cp = c & 0x1Fu; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2; cp = c & 0x0Fu; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3; cp = c & 0x07u; min = 0x10000;
    } else {
        *length = 1;
        return 0xFFFD;
    }
    if (n - i <= need) {
        *length = 1;
        return 0xFFFD;
    }
    for (size_t k = 1; k <= need; k++) {
        unsigned char d = s[i + k];
        if ((d & 0xC0) != 0x80) {
            *length = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (d & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *length = 1;
        return 0xFFFD;
    }
    *length = need + 1;
    return cp;
}

/** The code point that ends at byte offset i (requires 0 < i <= n). Reads at most four
 * bytes back; a malformed tail decodes as U+FFFD. */
static inline uint32_t u8_before(const unsigned char *s, size_t n, size_t i) {
    size_t j = i - 1;
    while (j > 0 && i - j < 4 && (s[j] & 0xC0) == 0x80) j--;
    size_t length;
    uint32_t cp = u8_decode(s, n, j, &length);
    return j + length == i ? cp : 0xFFFD;
}

static inline bool u_is_digit(uint32_t cp) { return cp >= '0' && cp <= '9'; }

static inline bool u_is_ascii_alnum(uint32_t cp) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || u_is_digit(cp);
}

/** White space: ASCII \t \n \v \f \r and space, U+0085, U+00A0, U+1680, U+2000–U+200A,
 * U+2028, U+2029, U+202F, U+205F, U+3000. */
static inline bool u_is_space(uint32_t cp) {
    if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/** A letter by the compact rule described at the top of this file. */
static inline bool u_is_letter(uint32_t cp) {
    if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    if (cp <= 0xBF) return false;                      /* C1 controls, U+00A0–U+00BF */
    if (cp == 0xD7 || cp == 0xF7 || cp == 0x1680) return false;
    if (cp >= 0x2000 && cp <= 0x206F) return false;    /* general punctuation, spaces */
    if (cp >= 0x3000 && cp <= 0x303F) return false;    /* CJK symbols and punctuation */
    if (cp >= 0xFE30 && cp <= 0xFE4F) return false;    /* CJK compatibility forms */
    if (cp >= 0xFF01 && cp <= 0xFF0F) return false;    /* fullwidth punctuation */
    if (cp >= 0xFF1A && cp <= 0xFF20) return false;
    if (cp >= 0xFF3B && cp <= 0xFF40) return false;
    if (cp >= 0xFF5B && cp <= 0xFF65) return false;
    if (cp == 0xFEFF || (cp >= 0xFFF0 && cp <= 0xFFFF)) return false;
    return true;
}

/** True when `cp`, standing right before an "@", "#", a URL or a phone number, makes it
 * part of a longer word: ASCII letters and digits, "_", and letters below U+2E80 (Latin,
 * Greek, Cyrillic, Arabic, Indic, ... — scripts written with spaces between words).
 * Letters from U+2E80 up (CJK, kana, Hangul, Yi, fullwidth forms) do not join: those
 * scripts run words together, so "生活着@百度" still starts a mention at "@". */
static inline bool u_joins_word(uint32_t cp) {
    if (cp < 0x80) return u_is_ascii_alnum(cp) || cp == '_';
    return cp < 0x2E80 && u_is_letter(cp);
}

#endif /* LINKS_UTF8_H */
