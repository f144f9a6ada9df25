# cython: language_level=3
"""Lexical multiple-choice solver over packed token ids (EXAM).

An article is a list of paragraphs; a paragraph is a range of sentences; a sentence is a range of
token ids. For each (article, question) task every answer choice gets the best sentence's
idf-weighted overlap with the question's distinct tokens plus the choice's own distinct tokens
(those not in the question), divided by the total idf of those tokens. A sentence supports a choice
only if it contains at least one of the choice's own tokens; unsupported choices score 0 and are
eliminated. The answer is the best choice when it beats the runner-up by more than ``margin``;
otherwise the question is not answered (-1). Also reported: each choice's
best sentence (article-local index, -1 if unsupported) and the sentence that best matches the
question alone (-1 if none shares a term), which free-text questions use as the answer.

Per article an inverted index (token -> distinct sentences) is built once in O(tokens), so a
question costs only the postings of its few tokens. Buffers are private to the call: the function
releases the GIL and is safe to run from many threads on disjoint task ranges.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memset

cimport cython

# The shared kernel (ngram.pyx), under the name this module's callers use.
from qascore._kernels.ngram import document_frequency


@cython.boundscheck(False)
@cython.wraparound(False)
def solve_lexical(
    const int[:] tok_ids,
    const long long[:] sent_off,
    const long long[:] par_sent_off,
    const long long[:] art_par_off,
    const long long[:] art_pars,
    const int[:] q_tok,
    const long long[:] q_off,
    const int[:] ch_tok,
    const long long[:] ch_off,
    const long long[:] q_choice_off,
    const long long[:] task_article,
    const long long[:] task_question,
    const long long[:] task_choice_off,
    const double[:] idf,
    double margin,
    long long task_start,
    long long task_stop,
    double[:] out_choice_score,
    long long[:] out_choice_sent,
    long long[:] out_question_sent,
    long long[:] out_answer,
    double[:] out_confidence,
):
    """Solve tasks [task_start, task_stop); tasks must be grouped by article (contiguous runs)."""
    cdef Py_ssize_t vocab = idf.shape[0]
    cdef long long *head
    cdef long long *last_sent
    cdef long long *post_next
    cdef long long *post_sent
    cdef long long *tail
    cdef double *q_score
    cdef double *c_score
    cdef long long *touched
    cdef long long *sent_list
    cdef long long max_tokens = 0, max_sents = 0
    cdef long long t, a, prev_a, p, pi, s, k, pos, tok, node, n_sent, n_post, n_touched, j, c, cs
    cdef long long best_c, n_choices, best_s
    cdef double wq, wc, best, second, v, qbest, score, dnorm

    if task_stop <= task_start:
        return
    # Size buffers by the largest article in the range.
    prev_a = -1
    for t in range(task_start, task_stop):
        a = task_article[t]
        if a == prev_a:
            continue
        prev_a = a
        n_sent = 0
        pos = 0
        for pi in range(art_par_off[a], art_par_off[a + 1]):
            p = art_pars[pi]
            n_sent += par_sent_off[p + 1] - par_sent_off[p]
            pos += sent_off[par_sent_off[p + 1]] - sent_off[par_sent_off[p]]
        if n_sent > max_sents:
            max_sents = n_sent
        if pos > max_tokens:
            max_tokens = pos

    head = <long long *> malloc((vocab + 1) * sizeof(long long))
    tail = <long long *> malloc((vocab + 1) * sizeof(long long))
    last_sent = <long long *> malloc((vocab + 1) * sizeof(long long))
    post_next = <long long *> malloc((max_tokens + 1) * sizeof(long long))
    post_sent = <long long *> malloc((max_tokens + 1) * sizeof(long long))
    q_score = <double *> malloc((max_sents + 1) * sizeof(double))
    c_score = <double *> malloc((max_sents + 1) * sizeof(double))
    touched = <long long *> malloc((max_sents + 1) * sizeof(long long))
    sent_list = <long long *> malloc((max_tokens + 1) * sizeof(long long))
    if (head == NULL or tail == NULL or last_sent == NULL or post_next == NULL or post_sent == NULL
            or q_score == NULL or c_score == NULL or touched == NULL or sent_list == NULL):
        free(head); free(tail); free(last_sent); free(post_next); free(post_sent)
        free(q_score); free(c_score); free(touched); free(sent_list)
        raise MemoryError("exam lexical kernel: cannot allocate buffers")

    with nogil:
        for k in range(vocab):
            head[k] = -1
            last_sent[k] = -1
        for k in range(max_sents + 1):
            c_score[k] = 0.0
        prev_a = -1
        n_post = 0
        n_sent = 0
        for t in range(task_start, task_stop):
            a = task_article[t]
            if a != prev_a:
                # Reset the previous article's index (only the tokens it touched), build this one.
                for k in range(n_post):
                    tok = sent_list[k]
                    head[tok] = -1
                    last_sent[tok] = -1
                n_post = 0
                n_sent = 0
                for pi in range(art_par_off[a], art_par_off[a + 1]):
                    p = art_pars[pi]
                    for s in range(par_sent_off[p], par_sent_off[p + 1]):
                        for pos in range(sent_off[s], sent_off[s + 1]):
                            tok = tok_ids[pos]
                            if last_sent[tok] == n_sent:
                                continue
                            if last_sent[tok] == -1:
                                head[tok] = n_post
                            else:
                                post_next[tail[tok]] = n_post
                            last_sent[tok] = n_sent
                            tail[tok] = n_post
                            post_sent[n_post] = n_sent
                            post_next[n_post] = -1
                            sent_list[n_post] = tok
                            n_post += 1
                        n_sent += 1
                prev_a = a
            j = task_question[t]
            for s in range(n_sent):
                q_score[s] = 0.0
            wq = 0.0
            for pos in range(q_off[j], q_off[j + 1]):
                tok = q_tok[pos]
                wq += idf[tok]
                node = head[tok]
                while node != -1:
                    q_score[post_sent[node]] += idf[tok]
                    node = post_next[node]
            best_s = -1
            qbest = 0.0
            for s in range(n_sent):
                if q_score[s] > qbest:
                    qbest = q_score[s]
                    best_s = s
            out_question_sent[t] = best_s
            best = -1.0
            second = -1.0
            best_c = -1
            n_choices = q_choice_off[j + 1] - q_choice_off[j]
            for c in range(n_choices):
                cs = q_choice_off[j] + c
                wc = 0.0
                n_touched = 0
                for pos in range(ch_off[cs], ch_off[cs + 1]):
                    tok = ch_tok[pos]
                    wc += idf[tok]
                    node = head[tok]
                    while node != -1:
                        s = post_sent[node]
                        if c_score[s] == 0.0:
                            touched[n_touched] = s
                            n_touched += 1
                        c_score[s] += idf[tok]
                        node = post_next[node]
                score = 0.0
                best_s = -1
                for k in range(n_touched):
                    s = touched[k]
                    v = q_score[s] + c_score[s]
                    if v > score or (v == score and s < best_s):
                        score = v
                        best_s = s
                    c_score[s] = 0.0
                out_choice_sent[task_choice_off[t] + c] = best_s
                dnorm = wq + wc
                if dnorm > 0.0:
                    score = score / dnorm
                else:
                    score = 0.0
                out_choice_score[task_choice_off[t] + c] = score
                if score > best:
                    second = best
                    best = score
                    best_c = c
                elif score > second:
                    second = score
            if n_choices == 0 or best <= 0.0:
                out_answer[t] = -1
                out_confidence[t] = 0.0
            else:
                if second < 0.0:
                    second = 0.0
                if best - second > margin:
                    out_answer[t] = best_c
                else:
                    out_answer[t] = -1
                out_confidence[t] = best - second

    free(head); free(tail); free(last_sent); free(post_next); free(post_sent)
    free(q_score); free(c_score); free(touched); free(sent_list)
