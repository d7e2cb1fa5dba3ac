/* The lexer pass of the configuration module: see config_lex.h.
 *
 * Two libconfig 1.5 behaviours are handled here, before libconfig sees the text. Integer
 * literals that do not fit 32 bits wrap silently (steps = 5000000000 reads as 705032704), so
 * such literals get the L suffix added, as newer libconfig versions do by themselves; literals
 * past 64 bits are an error. And @include is refused: only rank 0 reads input files, the other
 * ranks see the broadcast text and could not follow the include.
 */
#include "config_lex.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

static int digit_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    return tolower(ch) - 'a' + 10;
}

/* Checks one integer literal t[0..len) (sign, digits or 0x digits, optional L/LL). Returns 0
 * when fine as is, 1 when it needs an L suffix to keep its value, -1 when out of 64-bit
 * range, 2 when it is not an integer literal at all (left to libconfig). */
static int classify_integer(const char *t, size_t len)
{
    size_t i = 0, suffix = 0;
    int neg = 0, base = 10;
    if (t[i] == '+' || t[i] == '-')
        neg = t[i++] == '-';
    if (len - i > 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    while (suffix < len - i && t[len - 1 - suffix] == 'L')
        ++suffix;
    if (suffix > 2 || len - suffix <= i)
        return 2;
    unsigned long long v = 0;
    int over = 0;
    for (size_t j = i; j < len - suffix; ++j) {
        int ch = (unsigned char)t[j];
        if (!(base == 16 ? isxdigit(ch) : isdigit(ch)))
            return 2;
        unsigned d = (unsigned)digit_value(ch);
        if (v > (ULLONG_MAX - d) / (unsigned)base)
            over = 1;
        else
            v = v * (unsigned)base + d;
    }
    unsigned long long lim64 = neg ? (unsigned long long)INT64_MAX + 1 : INT64_MAX;
    unsigned long long lim32 = neg ? (unsigned long long)INT_MAX + 1 : INT_MAX;
    if (over || v > lim64)
        return -1;
    return (!suffix && v > lim32) ? 1 : 0;
}

char *cfg_prescan(const char *t, unsigned *bad_line, char *why, size_t why_len)
{
    size_t n = strlen(t);
    char *out = VS_MALLOC(n + n / 8 + 2); /* a literal needing L is 10+ characters long */
    size_t o = 0, i = 0;
    unsigned line = 1;
    int line_start = 1, depth = 0;
    while (t[i]) {
        char ch = t[i];
        if (ch == '\n') {
            ++line;
            line_start = 1;
            out[o++] = t[i++];
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            out[o++] = t[i++];
        } else if (ch == '#' || (ch == '/' && t[i + 1] == '/')) {
            while (t[i] && t[i] != '\n')
                out[o++] = t[i++];
        } else if (ch == '/' && t[i + 1] == '*') {
            out[o++] = t[i++];
            out[o++] = t[i++];
            while (t[i] && !(t[i] == '*' && t[i + 1] == '/')) {
                line += t[i] == '\n';
                out[o++] = t[i++];
            }
            for (int k = 0; k < 2 && t[i]; ++k)
                out[o++] = t[i++];
        } else if (ch == '"') {
            out[o++] = t[i++];
            while (t[i] && t[i] != '"') {
                if (t[i] == '\\' && t[i + 1])
                    out[o++] = t[i++];
                line += t[i] == '\n';
                out[o++] = t[i++];
            }
            if (t[i])
                out[o++] = t[i++];
            line_start = 0;
        } else if (ch == '@' && line_start && strncmp(t + i, "@include", 8) == 0) {
            *bad_line = line;
            snprintf(why, why_len,
                     "@include is not supported: only rank 0 reads files, so put everything "
                     "in one file");
            free(out);
            return NULL;
        } else if (isalpha((unsigned char)ch) || ch == '*') {
            while (isalnum((unsigned char)t[i]) || t[i] == '-' || t[i] == '_' || t[i] == '*')
                out[o++] = t[i++];
            line_start = 0;
        } else if (isdigit((unsigned char)ch) ||
                   ((ch == '+' || ch == '-' || ch == '.') &&
                    (isdigit((unsigned char)t[i + 1]) ||
                     (t[i + 1] == '.' && isdigit((unsigned char)t[i + 2]))))) {
            /* One numeric token: alphanumerics and dots, plus a sign right after an exponent
             * letter of a decimal float. */
            size_t s = i++;
            int hex = 0;
            while (isalnum((unsigned char)t[i]) || t[i] == '.' ||
                   ((t[i] == '+' || t[i] == '-') && !hex && (t[i - 1] == 'e' || t[i - 1] == 'E'))) {
                if (t[i] == 'x' || t[i] == 'X')
                    hex = 1;
                ++i;
            }
            size_t len = i - s;
            memcpy(out + o, t + s, len);
            o += len;
            int kind = classify_integer(t + s, len);
            if (kind == 1) {
                out[o++] = 'L';
            } else if (kind < 0) {
                *bad_line = line;
                snprintf(why, why_len, "integer %.*s does not fit in 64 bits",
                         (int)(len > 40 ? 40 : len), t + s);
                free(out);
                return NULL;
            }
            line_start = 0;
        } else {
            depth += (ch == '{' || ch == '[' || ch == '(') - (ch == '}' || ch == ']' || ch == ')');
            if (depth > VS_CFG_MAX_DEPTH) {
                /* libconfig's parser would run out of stack ("memory exhausted") far deeper */
                *bad_line = line;
                snprintf(why, why_len, "groups, lists and arrays nest more than %d levels deep "
                         "(the limit; Vesica's keys nest at most 4 levels)", VS_CFG_MAX_DEPTH);
                free(out);
                return NULL;
            }
            out[o++] = t[i++];
            line_start = 0;
        }
    }
    out[o] = '\0';
    return out;
}

/* Whether a setting name (NAME followed by '=' or ':') starts at t[i]; its length in *len. */
static int name_at(const char *t, size_t i, size_t *len)
{
    if (!(isalpha((unsigned char)t[i]) || t[i] == '*') ||
        (i > 0 && (isalnum((unsigned char)t[i - 1]) || strchr("-_*\".", t[i - 1]))))
        return 0;
    size_t j = i;
    while (isalnum((unsigned char)t[j]) || t[j] == '-' || t[j] == '_' || t[j] == '*')
        ++j;
    *len = j - i;
    while (t[j] == ' ' || t[j] == '\t')
        ++j;
    return t[j] == '=' || t[j] == ':';
}

/* Whether setting name t[i..i+len) also appears as a setting name before position i. */
static int named_before(const char *t, size_t i, size_t len)
{
    for (size_t k = 0; k < i; ++k) {
        size_t l = 0;
        if (name_at(t, k, &l) && l == len && strncmp(t + k, t + i, len) == 0)
            return 1;
    }
    return 0;
}

int cfg_duplicate_name(const char *t, unsigned line, char *name, size_t name_len)
{
    size_t i = 0;
    for (unsigned l = 1; l < line && t[i]; ++i)
        l += t[i] == '\n';
    size_t found = 0, found_len = 0;
    for (; t[i] && t[i] != '\n'; ++i) {
        size_t len = 0;
        if (name_at(t, i, &len) && named_before(t, i, len)) {
            found = i;
            found_len = len;
        }
    }
    if (!found_len)
        return -1;
    snprintf(name, name_len, "%.*s", (int)found_len, t + found);
    return 0;
}

/* A bare word where a value belongs on `line` (a string without its double quotes): the
 * word. Returns 0, or -1 when the line has none. */
static int bare_word(const char *t, unsigned line, char *word, size_t word_len)
{
    size_t i = 0;
    for (unsigned l = 1; l < line && t[i]; ++i)
        l += t[i] == '\n';
    for (; t[i] && t[i] != '\n' && t[i] != '#'; ++i) {
        if (t[i] == '"')
            return -1; /* a string on the line: its words are not values */
        if (t[i] != '=' && t[i] != ':')
            continue;
        size_t j = i + 1;
        while (t[j] == ' ' || t[j] == '\t')
            ++j;
        if (!isalpha((unsigned char)t[j]))
            continue;
        size_t k = j;
        while (isalnum((unsigned char)t[k]) || t[k] == '_' || t[k] == '-' || t[k] == '.')
            ++k;
        if ((k - j == 4 && strncasecmp(t + j, "true", 4) == 0) ||
            (k - j == 5 && strncasecmp(t + j, "false", 5) == 0))
            continue;
        snprintf(word, word_len, "%.*s", (int)(k - j), t + j);
        return 0;
    }
    return -1;
}

void cfg_explain_error(const char *text, unsigned line, const char *msg, char *why,
                       size_t why_len)
{
    char word[64];
    if (strcmp(msg, "syntax error") == 0 && bare_word(text, line, word, sizeof word) == 0)
        snprintf(why, why_len, "%s is not a value: a string needs double quotes, \"%s\"", word,
                 word);
    else if (strcmp(msg, "mismatched element type in array") == 0)
        snprintf(why, why_len, "%s: write every element the same way, e.g. [16.0, 16.5, 16.0]",
                 msg);
    else
        snprintf(why, why_len, "%s", msg);
}
