"""The bench's printed table: a line per figure, its ratio and the target it is held to."""
import os
import statistics

from . import keystroke, typography


def print_header():
    print(f"{'row':10} {'figure':60} {'ratio':>8} {'target':>8}")


def print_corpus(rows):
    c = rows["corpus"]
    print(f"{'corpus':10} {'layoutd %.0f µs vs Pango %.0f µs per pass' % (c['layoutd_us'], c['pango_us']):60} {c['vs_pango']:8.2f} {'≤ 0.20':>8}")
    print(f"{'':10} {'layoutd %.0f µs vs raw hb_shape %.0f µs per pass' % (c['layoutd_us'], c['hb_shape_us']):60} {c['vs_hb_shape']:8.2f} {'≤ 1.00':>8}")
    print(f"{'':10} {'(each pass against the reference run just before it: median)':60} {statistics.median(c['pass_vs_pango']):8.2f}")
    print(f"{'':10} {'(the same against raw hb_shape: median; spread %.2f–%.2f)' % (min(c['pass_vs_hb_shape']), max(c['pass_vs_hb_shape'])):60} {statistics.median(c['pass_vs_hb_shape']):8.2f}")
    if "engine_us" not in c:
        return   # --only: the corpus row without its breakdown
    print(f"{'':10} {'(the engine alone, in process: %.0f µs per pass, vs raw hb)' % c['engine_us']:60} {c['engine_vs_hb_shape']:8.2f}")
    print(f"{'':10} {'(the same, every word new: %.0f µs per pass, vs raw hb)' % c['engine_new_words_us']:60} {c['engine_new_words_vs_hb_shape']:8.2f}")
    print(f"{'':10} {'(as many ping round trips, doing no work: %.0f µs per pass)' % c['ping_round_trips_us']:60} {c['ping_round_trips_us'] / c['layoutd_us']:8.2f}")


def print_streaming(rows):
    st = rows["streaming"]
    print(f"{'streaming':10} {'append 20 chars %.0f µs vs fresh layout %.0f µs' % (st['append_changed_us'], st['fresh_us']):60} {st['ratio_changed']:8.3f} {'< 0.05':>8}")
    print(f"{'':10} {'(against a fresh layout kept for queries: %.0f µs)' % st['fresh_retained_us']:60} {st['ratio_changed_vs_retained']:8.3f}")
    print(f"{'':10} {'(full result back: %.0f µs)' % st['append_full_us']:60} {st['ratio_full']:8.3f}")


def print_relayout(rows):
    if "resize" not in rows:
        return
    r = rows["resize"]
    if "sk_relayout_us" in r:
        print(f"{'resize':10} {'document %.0f µs vs SkParagraph re-wrap %.0f µs per pass' % (r['document_us'], r['sk_relayout_us']):60} {r['document_vs_sk_relayout']:8.2f} {'≤ 1.00':>8}")
        print(f"{'':10} {'(one layout per paragraph: %.0f µs)' % r['each_us']:60} {r['each_vs_sk_relayout']:8.2f} {'≤ 1.00':>8}")
        print(f"{'':10} {'(the engine alone, in process: %.0f µs)' % r['engine_relayout_us']:60} {r['engine_vs_sk_relayout']:8.2f}")
    else:
        print(f"{'resize':10} {'document %.0f µs (SkParagraph not measured)' % r['document_us']:60}")
    print(f"{'':10} {'document vs Pango re-wrap %.0f µs' % r['pango_relayout_us']:60} {r['document_vs_pango_relayout']:8.3f} {'≤ 0.05':>8}")
    print(f"{'':10} {'(one layout per paragraph)':60} {r['each_vs_pango_relayout']:8.3f} {'≤ 0.05':>8}")
    print(f"{'':10} {'(paragraphs shaped again by the resizes: %d)' % r['reshaped_paragraphs']:60}")
    t = rows["toggle"]
    print(f"{'toggle':10} {'maxLines 3 ↔ 0 %.1f µs vs fresh layout %.1f µs' % (t['toggle_us'], t['fresh_us']):60} {t['ratio']:8.3f} {'≤ 0.05':>8}")
    w = rows["widths"]
    print(f"{'widths':10} {'8 widths %.0f µs vs one measure %.0f µs per pass' % (w['widths_us'], w['one_us']):60} {w['ratio']:8.2f} {'≤ 2.00':>8}")
    print(f"{'':10} {'(against 8 single measures: %.0f µs)' % w['singles_us']:60} {w['vs_singles']:8.2f}")
    b = rows["balance"]
    print(f"{'balance':10} {'balanced %.0f µs vs greedy %.0f µs per pass' % (b['balance_us'], b['greedy_us']):60} {b['ratio']:8.2f} {'≤ 3.00':>8}")
    print(f"{'':10} {'(paragraphs with another line count than greedy: %d)' % b['line_count_differs']:60} {'':8} {'0':>8}")


def print_growth(rows):
    g = rows["growth"]
    print(f"{'growth':10} {'1 MB %.0f µs vs 100 kB %.0f µs (median of %d rounds)' % (g['us_1m'], g['us_100k'], len(g['round_ratios'])):60} {g['ratio']:8.2f} {'≤ 11':>8}")


def print_parallel(rows):
    pa = rows["parallel"]
    print(f"{'parallel':10} {'4 clients %.0f req/s vs 1 client %.0f req/s (%d cores)' % (pa['four_clients_rps'], pa['one_client_rps'], os.cpu_count()):60} {pa['ratio']:8.2f} {'≥ 1.70':>8}")
    print(f"{'':10} {'(the engine alone, in process, on 2 threads at once vs 1)':60} {pa['engine_two_threads_ratio']:8.2f}")


def print_start(rows, passes):
    sr = rows["start"]
    print(f"{'start':10} {'exec to READY=1 %.0f ms (median of %d)' % (sr['ready_ms'], passes):60} {'':8} {'≤ 200 ms':>8}")
    print(f"{'':10} {'first request after ready %.0f µs vs warm %.0f µs' % (sr['first_request_us'], sr['warm_request_us']):60} {sr['first_vs_warm']:8.2f} {'≤ 2':>8}")
    print(f"{'':10} {'(an unseen paragraph as long, on the warm daemon: %.0f µs)' % sr['unseen_paragraph_us']:60} {sr['first_vs_unseen']:8.2f}")
    print(f"{'':10} {'(the first paragraph on a daemon warm from the rest: %.0f µs)' % sr['first_seen_warm_us']:60} {sr['first_vs_first_seen_warm']:8.2f}")
    print(f"{'':10} {'(raw hb_shape of the first paragraph alone: %.0f µs, vs warm)' % sr['raw_hb_shape_us']:60} {sr['raw_hb_shape_vs_warm']:8.2f}")
    print(f"{'':10} {'(each after a 200 ms pause: first %.0f µs vs warm %.0f µs)' % (sr['paused_first_request_us'], sr['paused_warm_request_us']):60} {sr['paused_first_vs_warm']:8.2f}")
    print(f"{'':10} {'restarted, shaped words kept: READY=1 %.0f ms' % sr['kept_ready_ms']:60} {'':8} {'≤ 200 ms':>8}")
    print(f"{'':10} {'  first request after ready %.0f µs vs warm %.0f µs' % (sr['kept_first_request_us'], sr['kept_warm_request_us']):60} {sr['kept_first_vs_warm']:8.2f} {'≤ 2':>8}")


def print_memory(rows):
    print(f"{'memory':10} {'RSS after the corpus row %.1f MB' % (rows['memory']['rss_bytes'] / 1e6):60} {'':8} {'≤ 64 MB':>8}")


def print_document(rows):
    d = rows["document"]
    print(f"{'document':10} {'%.1f MB, %d paragraphs, %d lines: %.2f s per measure' % (d['bytes'] / 1e6, d['paragraphs'], d['lines'], d['seconds']):60}")
    print(f"{'':10} {'RSS after each of 5: ' + ' '.join('%.0f' % (r / 1e6) for r in d['rss_after_each']) + ' MB':60} {d['rss_after_each'][-1] / d['rss_after_each'][0]:8.2f} {'bounded':>8}")


def print_short(rows):
    if "short" not in rows:
        return
    s, f, p = rows["short"], rows["fixed_cost"], rows["chat_parallel"]
    print(f"{'short':10} {'batched, first time %.1f µs vs Pango %.1f µs per message' % (s['batched_first_us'], s['pango_us']):60} {s['batched_first_vs_pango']:8.2f} {'≤ 0.30':>8}")
    print(f"{'':10} {'(%.0f messages/s)' % s['batched_first_msgs_per_s']:60}")
    print(f"{'':10} {'batched, the same messages again %.1f µs' % s['batched_again_us']:60} {s['batched_again_vs_pango']:8.2f}")
    print(f"{'':10} {'one request at a time %.1f µs (one core)' % s['single_us']:60} {s['single_vs_pango']:8.2f} {'≤ 1.00':>8}")
    fixed = 'batched measure of "a" %.1f µs vs batched ping %.1f µs' % (f['measure_a_us'], f['ping_us'])
    print(f"{'fixed cost':10} {fixed:60} {f['ratio']:8.2f} {'≤ 2.00':>8}")
    kept = '(the same "a" again, its size kept: %.1f µs)' % f['measure_a_kept_us']
    print(f"{'':10} {kept:60} {f['kept_ratio']:8.2f}")
    print(f"{'chat par.':10} {'4 clients %.0f msgs/s vs 1 client %.0f msgs/s (%d cores)' % (p['four_clients_msgs_per_s'], p['one_client_msgs_per_s'], os.cpu_count()):60} {p['ratio']:8.2f} {'≥ 1.70':>8}")


def print_table(rows, passes):
    """Every row of a full run, in the order the targets are listed."""
    print_header()
    if "corpus" not in rows:
        keystroke.print_keystroke(rows)
        return   # --only keystroke
    print_corpus(rows)
    print_relayout(rows)
    typography.print_wrap(rows)
    typography.print_hyphenation(rows)
    if "streaming" not in rows:
        print_short(rows)
        return   # --only relayout, --only short
    print_streaming(rows)
    print_growth(rows)
    print_parallel(rows)
    print_start(rows, passes)
    print_memory(rows)
    print_document(rows)
    print_short(rows)
    keystroke.print_keystroke(rows)
