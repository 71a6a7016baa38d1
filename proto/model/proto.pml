/*
 * proto/model/proto.pml: Promela model of the point-to-point protocol of
 * proto/proto.c (EAGER / RTS-CTS / REQ write protocol, hold list, REQ
 * chain, cancel, eager credits).  See proto/model/README.
 *
 * Ranks: receiver R (rank 0) and senders S (peer 0) and, when NT > 0, T
 * (peer 1).  Per sender p:
 *   fifo_sr[p]  S->R FIFO (mbcf restores order): EAGER RTS WDONE CANCEL_ACK
 *   fifo_rs[p]  R->S FIFO: REQ CTS CANCEL CREDIT
 *   wr[p]       write + notify: delivered in ANY order, at any time
 *               relative to both FIFOs (libfabric does not order them)
 * State names follow the code: PR_POSTED, PR_WAIT_DATA, PR_CANCELING,
 * PS_WAIT_CTS, PS_WRITING, P_DONE.  Ghost variables (g_*) record the match
 * MPI allows and are checked at every matching decision and data landing.
 *
 * Configuration (-D...): NS, NT messages from S and T; NR receives;
 * ANYSRC (receives may be MPI_ANY_SOURCE); NAMED_T (receives may name T);
 * CANCEL (one receive may be cancelled; if it is, a replacement with the
 * same envelope is posted); REQ_MAX (armed ring); CREDITS (eager credits
 * per sender, in messages); NTAGS (1 or 2); SCAN_SKIP (a REQ scan may do
 * nothing, abstracting req_skip/backoff/req_min).
 * Planted bugs: PLANTED_ACCEPT_STALE_REQ, PLANTED_NO_KILL, PLANTED_NO_HOLD.
 */
#ifndef NS
#define NS 2
#endif
#ifndef NT
#define NT 0
#endif
#ifndef NR
#define NR 2
#endif
#ifndef ANYSRC
#define ANYSRC 0
#endif
#ifndef NAMED_T
#define NAMED_T 0
#endif
#ifndef CANCEL
#define CANCEL 0
#endif
#ifndef REQ_MAX
#define REQ_MAX 2
#endif
#ifndef CREDITS
#define CREDITS 1
#endif
#ifndef NTAGS
#define NTAGS 2
#endif
#ifndef SCAN_SKIP
#define SCAN_SKIP 1
#endif

#if NT > 0
#define NSND 2
#else
#define NSND 1
#endif
#define MAXM 4                  /* seqs per sender (NS, NT <= MAXM) */
#define NREC (NR + CANCEL)      /* receive slots (replacement after cancel) */
#define NONE 255
#define ANY 254                 /* src of an ANY_SOURCE receive */
#define QCAP 12

/* request states (proto.c) */
#define PR_IDLE 0
#define PR_POSTED 1
#define PR_WAIT_DATA 2
#define PR_CANCELING 3
#define PS_WAIT_CTS 4
#define PS_WRITING 5
#define PS_EAGER 6
#define P_DONE 8
/* CANCEL_ACK results */
#define CANCEL_DISARMED 0
#define CANCEL_NOT_USED 1
#define CANCEL_USED 2

#define NMSG(p) ((p) == 0 -> NS : NT)

mtype = { EAGER, RTS, REQ, CTS, WDONE, CANCEL_MSG, CANCEL_ACK, CREDIT };

/* FIFO message: kind, seq, tag, rid (receive = exposure slot), gen, x
 * (REQ: base; CANCEL_ACK: result) */
chan fifo_sr[NSND] = [QCAP] of { mtype, byte, byte, byte, byte, byte };
chan fifo_rs[NSND] = [QCAP] of { mtype, byte, byte, byte, byte, byte };
/* write + notify word: seq (for the unordered pick), rid, gen, exact */
chan wr[NSND] = [MAXM] of { byte, byte, byte, bool };

/* ---- receiver R ---- */
byte npost;                     /* receives posted so far (rid = post order) */
byte norig;                     /* of the NR original receives */
byte cancel_rid = NONE;
bool replaced;
byte r_src[NREC], r_tag[NREC], r_peer[NREC], r_state[NREC], r_seq[NREC], r_gen[NREC];
bool r_exposed[NREC], r_req_out[NREC], r_resolved[NREC], r_rts[NREC], r_wdone[NREC], r_cancelled[NREC];
byte r_got[NREC], r_expected[NREC];
byte rx_next[NSND], nreq_out[NSND], req_win[NSND], held[NSND];
byte htype[NSND * MAXM];        /* 1 EAGER, 2 RTS for a held seq */
byte uq[NSND * MAXM];           /* unexpected queue: message ids, arrival order */
byte ut[NSND * MAXM];           /* 1 EAGER, 2 RTS */
byte nu;
/* ---- senders ---- */
byte tx_next[NSND], last_fifo[NSND], narmed[NSND], armed_head[NSND], used[NSND], nsent[NSND];
short credits[NSND];            /* eager credits (messages) */
bool fifo_sent[NSND];
byte a_seq[NSND * REQ_MAX], a_tag[NSND * REQ_MAX], a_rid[NSND * REQ_MAX], a_gen[NSND * REQ_MAX];
byte s_state[NSND * MAXM];
/* ---- ghost ---- */
byte g_rmsg[NREC], g_rdata[NREC], g_mrecv[NSND * MAXM], g_mtag[NSND * MAXM];
bool g_posted[NREC], g_cancelreq[NREC], g_msent[NSND * MAXM];

/* temporaries, only used inside one atomic step */
hidden byte f1, f2, f3, f4, f5, ka, kb, ks, kk, km, kg, kq, kr, kx, kmid;
hidden short kc;
hidden byte blocked, found;
hidden mtype mt;

/* message id m = p * MAXM + seq */
#define MATCH(r, m) ((r_src[r] == ANY || r_src[r] == (m) / MAXM) && r_tag[r] == g_mtag[m])
#define PENDING(r) (g_posted[r] && g_rmsg[r] == NONE && !g_cancelreq[r])
#define LOOKUP(r, g) ((r) < npost && r_exposed[r] && r_gen[r] == (g))

inline SEND(ch, a, b, c, d, e, f) {
    assert(nfull(ch));          /* model capacity, not a protocol property */
    ch!a, b, c, d, e, f
}

/* MPI matching rules, checked whenever the protocol decides a match. */
inline ghost_match(mm, rr) {
    assert(g_msent[mm]);
    assert(g_mrecv[mm] == NONE);        /* a message is matched once */
    assert(g_rmsg[rr] == NONE);         /* a receive is matched once */
    assert(MATCH(rr, mm));              /* envelope */
    /* non-overtaking, sender side: an earlier message of the same sender that
     * this receive would take is matched already */
    kg = 0;
    do
    :: kg < (mm % MAXM) ->
        assert(!MATCH(rr, mm - (mm % MAXM) + kg) || g_mrecv[mm - (mm % MAXM) + kg] != NONE);
        kg++
    :: else -> break
    od;
    /* receive side: no receive posted earlier and still pending takes it */
    kg = 0;
    do
    :: kg < rr -> assert(!(PENDING(kg) && MATCH(kg, mm))); kg++
    :: else -> break
    od;
    g_mrecv[mm] = rr;
    g_rmsg[rr] = mm
}

/* Payload of message mm lands in receive rr's buffer. */
inline land(rr, mm) {
    assert(g_rdata[rr] == NONE);        /* no buffer written by two messages */
    assert(g_rmsg[rr] == mm);           /* the data is the matched message's */
    g_rdata[rr] = mm
}

inline expose(rr) { r_gen[rr]++; r_exposed[rr] = 1 }
inline unexpose(rr) { r_exposed[rr] = 0 }

inline complete(rr) {
    unexpose(rr);
    r_state[rr] = P_DONE
}

inline credit_return(pp) {
    SEND(fifo_rs[pp], CREDIT, 0, 0, 0, 0, 0)
}

inline answer_rts(rr, pp, q) {
    r_state[rr] = PR_WAIT_DATA;
    r_peer[rr] = pp;
    r_resolved[rr] = 1;
    r_rts[rr] = 1;
    r_got[rr] = 0;
    r_wdone[rr] = 0;
    expose(rr);
    r_expected[rr] = 1;
    SEND(fifo_rs[pp], CTS, q, 0, rr, r_gen[rr], 0)
}

/* process_fifo_msg: a FIFO message whose turn has come (typ 1 EAGER 2 RTS) */
inline process_fifo(pp, typ, q) {
    kmid = pp * MAXM + q;
    km = 0;
    do
    :: km < npost && !(r_state[km] == PR_POSTED && MATCH(km, kmid)) -> km++
    :: else -> break
    od;
    if
    :: km < npost ->
        assert(!r_req_out[km]);         /* killed or resolved before */
        ghost_match(kmid, km);
        if
        :: typ == 1 ->
            land(km, kmid);
            complete(km);
            credit_return(pp)
        :: else -> answer_rts(km, pp, q)
        fi
    :: else ->
        uq[nu] = kmid;
        ut[nu] = typ;
        nu++
    fi
}

/* REQs to pp with seq >= q are dead (the sender dropped them). */
inline kill_reqs_from(pp, q) {
    kk = 0;
    do
    :: kk < npost ->
        if
        :: r_req_out[kk] && r_peer[kk] == pp && r_seq[kk] >= q ->
            r_req_out[kk] = 0;
            nreq_out[pp]--;
            req_win[pp] = 1;
            /* "used REQ r_seq and sent message q through the FIFO" */
            assert(!r_resolved[kk]);
            unexpose(kk);
            if
            :: r_state[kk] == PR_CANCELING -> r_cancelled[kk] = 1; complete(kk)
            :: else -> r_state[kk] = PR_POSTED
            fi
        :: else
        fi;
        kk++
    :: else -> break
    od
}

inline req_issue(rr, pp) {
    expose(rr);
    r_seq[rr] = rx_next[pp] + nreq_out[pp];
    r_peer[rr] = pp;
    r_req_out[rr] = 1;
    r_rts[rr] = 0;
    r_resolved[rr] = 0;
    r_wdone[rr] = 0;
    r_got[rr] = 0;
    r_expected[rr] = 0;
    SEND(fifo_rs[pp], REQ, r_seq[rr], r_tag[rr], rr, r_gen[rr], rx_next[pp]);
    nreq_out[pp]++
}

/* proto_req_scan: REQs for the receives that qualify (chain rules) */
inline req_scan(pp) {
    if
    :: held[pp] != 0 || nreq_out[pp] >= req_win[pp] -> skip
    :: else ->
        if
        :: SCAN_SKIP -> skip    /* req_skip / backoff / req_min: no REQ now */
        :: true ->
            blocked = 0;
            ks = 0;
            do
            :: ks < npost ->
                if
                :: r_state[ks] == PR_POSTED && r_src[ks] == ANY -> blocked = 1
                :: r_state[ks] == PR_POSTED && r_src[ks] == pp && !r_req_out[ks] && !blocked ->
                    req_issue(ks, pp);
                    if
                    :: nreq_out[pp] >= req_win[pp] -> break
                    :: else
                    fi
                :: else
                fi;
                ks++
            :: else -> break
            od
        fi
    fi
}

/* proto_advance: move rx_next over resolved REQs and held messages */
inline advance(pp) {
    do
    :: true ->
        ka = 0;
        do
        :: ka < npost && !(r_req_out[ka] && r_peer[ka] == pp && r_seq[ka] == rx_next[pp]) -> ka++
        :: else -> break
        od;
        if
        :: ka < npost && r_resolved[ka] ->
            r_req_out[ka] = 0;
            nreq_out[pp]--;
            rx_next[pp]++
        :: else ->
            if
            :: rx_next[pp] < MAXM && (held[pp] & (1 << rx_next[pp])) ->
                held[pp] = held[pp] & ~(1 << rx_next[pp]);
                kb = rx_next[pp];
                rx_next[pp]++;
                process_fifo(pp, htype[pp * MAXM + kb], kb);
                htype[pp * MAXM + kb] = 0
            :: else -> break
            fi
        fi
    od;
    req_scan(pp)
}

inline fifo_msg_arrived(pp, typ, q) {
#ifndef PLANTED_NO_KILL
    kill_reqs_from(pp, q);
#endif
    if
    :: q == rx_next[pp] ->
        rx_next[pp]++;
        process_fifo(pp, typ, q);
        advance(pp)
    :: q < rx_next[pp] -> assert(false)        /* seq sent twice */
    :: else ->
#ifdef PLANTED_NO_HOLD
        process_fifo(pp, typ, q)
#else
        assert(!(held[pp] & (1 << q)));
        held[pp] = held[pp] | (1 << q);
        htype[pp * MAXM + q] = typ
#endif
    fi
}

inline recv_resolve(rr) {
    if
    :: r_resolved[rr] -> skip
    :: else ->
        r_resolved[rr] = 1;
        r_state[rr] = PR_WAIT_DATA;
        req_win[r_peer[rr]] = (req_win[r_peer[rr]] * 2 > REQ_MAX -> REQ_MAX : req_win[r_peer[rr]] * 2);
        advance(r_peer[rr])
    fi
}

inline check_done(rr) {
    if
    :: r_wdone[rr] && r_got[rr] == r_expected[rr] -> complete(rr)
    :: else
    fi
}

/* proto_h_notify: the write of message (pp, q) landed in receive rr */
inline h_notify(pp, q, rr, g, exact) {
    assert(LOOKUP(rr, g));              /* never a revoked or foreign exposure */
    assert(r_state[rr] == PR_WAIT_DATA ||
           (r_req_out[rr] && (r_state[rr] == PR_POSTED || r_state[rr] == PR_CANCELING)));
    assert(!(r_wdone[rr] && r_got[rr] >= r_expected[rr]));
    land(rr, pp * MAXM + q);
    r_got[rr]++;
    if
    :: !r_rts[rr] && !r_resolved[rr] ->
        if
        :: exact -> r_wdone[rr] = 1; r_expected[rr] = 1
        :: else
        fi;
        recv_resolve(rr)
    :: else
    fi;
    check_done(rr)
}

inline h_wdone(pp, q, rr, g) {
    assert(LOOKUP(rr, g) && r_peer[rr] == pp && !r_wdone[rr]);
    if
    :: !r_rts[rr] && (r_req_out[rr] || r_resolved[rr]) ->
        assert(q == r_seq[rr]);
        r_wdone[rr] = 1;
        r_expected[rr] = 1;
        recv_resolve(rr)
    :: r_rts[rr] && r_state[rr] == PR_WAIT_DATA -> r_wdone[rr] = 1
    :: else -> assert(false)
    fi;
    check_done(rr)
}

inline h_cancel_ack(pp, q, rr, g, res) {
    if
    :: LOOKUP(rr, g) && r_peer[rr] == pp && r_state[rr] == PR_CANCELING && r_req_out[rr] &&
       r_seq[rr] == q && res != CANCEL_USED ->
        kill_reqs_from(pp, q);
        req_scan(pp)
    :: else -> skip     /* settled by the FIFO message or the write */
    fi
}

/* proto_irecv of receive rid npost with envelope (s, t) */
inline post_recv(s, t) {
    kr = npost;
    npost++;
    g_posted[kr] = 1;
    r_src[kr] = s;
    r_tag[kr] = t;
    r_peer[kr] = (s == ANY -> NONE : s);
    kq = 0;
    do
    :: kq < nu && !((s == ANY || s == uq[kq] / MAXM) && t == g_mtag[uq[kq]]) -> kq++
    :: else -> break
    od;
    if
    :: kq < nu ->
        kx = uq[kq];
        f5 = ut[kq];
        do
        :: kq + 1 < nu -> uq[kq] = uq[kq + 1]; ut[kq] = ut[kq + 1]; kq++
        :: else -> break
        od;
        nu--;
        uq[nu] = 0;
        ut[nu] = 0;
        ghost_match(kx, kr);
        if
        :: f5 == 2 -> answer_rts(kr, kx / MAXM, kx % MAXM)
        :: else ->
            land(kr, kx);
            complete(kr);
            credit_return(kx / MAXM)
        fi
    :: else ->
        r_state[kr] = PR_POSTED;
        if
        :: s != ANY -> req_scan(s)
        :: else
        fi
    fi
}

inline do_cancel(rr) {
    cancel_rid = rr;
    g_cancelreq[rr] = 1;
    if
    :: !r_req_out[rr] -> r_cancelled[rr] = 1; complete(rr)
    :: else ->
        r_state[rr] = PR_CANCELING;
        SEND(fifo_rs[r_peer[rr]], CANCEL_MSG, r_seq[rr], 0, rr, r_gen[rr], 0)
    fi
}

#define CANCEL_BR(K) :: atomic { (cancel_rid == NONE && K < npost && r_state[K] == PR_POSTED) -> do_cancel(K) }
#define WRB(P, K) :: atomic { wr[P]??[eval(K), _, _, _] -> wr[P]??eval(K), f2, f3, f4; h_notify(P, K, f2, f3, f4) }
#define FIFOB(P) :: atomic { fifo_sr[P]?mt, f1, f2, f3, f4, f5 -> \
        if \
        :: mt == EAGER -> fifo_msg_arrived(P, 1, f1) \
        :: mt == RTS -> fifo_msg_arrived(P, 2, f1) \
        :: mt == WDONE -> h_wdone(P, f1, f3, f4) \
        :: mt == CANCEL_ACK -> h_cancel_ack(P, f1, f3, f4, f5) \
        :: else -> assert(false) \
        fi }

inline final_check() {
    kx = 0;
    do
    :: kx < NSND -> assert(held[kx] == 0); assert(nsent[kx] == NMSG(kx)); kx++
    :: else -> break
    od;
    assert(norig == NR);
    /* receives */
    kr = 0;
    do
    :: kr < npost ->
        assert(r_state[kr] == PR_POSTED || r_state[kr] == P_DONE);
        if
        :: r_state[kr] == P_DONE && r_cancelled[kr] -> assert(g_rmsg[kr] == NONE && g_rdata[kr] == NONE)
        :: r_state[kr] == P_DONE && !r_cancelled[kr] -> assert(g_rmsg[kr] != NONE && g_rdata[kr] == g_rmsg[kr])
        :: r_state[kr] == PR_POSTED -> assert(g_rmsg[kr] == NONE)
        :: else
        fi;
        kr++
    :: else -> break
    od;
    /* messages: matched (and completed) or unexpected; an unmatched one
     * matches no pending receive (else the run stopped while MPI could go on) */
    kx = 0;
    do
    :: kx < NSND * MAXM ->
        if
        :: g_msent[kx] && g_mrecv[kx] != NONE ->
            assert(r_state[g_mrecv[kx]] == P_DONE && g_rdata[g_mrecv[kx]] == kx && s_state[kx] == P_DONE)
        :: g_msent[kx] && g_mrecv[kx] == NONE ->
            found = 0;
            kq = 0;
            do
            :: kq < nu -> found = found || uq[kq] == kx; kq++
            :: else -> break
            od;
            assert(found);              /* not lost */
            kr = 0;
            do
            :: kr < npost -> assert(!(r_state[kr] == PR_POSTED && MATCH(kr, kx))); kr++
            :: else -> break
            od
        :: else
        fi;
        kx++
    :: else -> break
    od;
    /* credits: all returned but those held by unexpected eager messages */
    kx = 0;
    do
    :: kx < NSND ->
        kb = 0;
        kq = 0;
        do
        :: kq < nu -> kb = kb + (uq[kq] / MAXM == kx && ut[kq] == 1); kq++
        :: else -> break
        od;
        assert(credits[kx] + kb == CREDITS);
        kx++
    :: else -> break
    od;
    /* a balanced program (every message has its receive) completes all */
    found = 1;
    kr = 0;
    do
    :: kr < npost -> found = found && r_src[kr] != ANY && !r_cancelled[kr]; kr++
    :: else -> break
    od;
    kx = 0;
    do
    :: kx < NSND * 2 ->
        kc = 0;
        kr = 0;
        do
        :: kr < npost -> kc = kc + (r_src[kr] == kx / 2 && r_tag[kr] == kx % 2 && !r_cancelled[kr]); kr++
        :: else -> break
        od;
        kq = 0;
        do
        :: kq < NSND * MAXM -> kc = kc - (g_msent[kq] && kq / MAXM == kx / 2 && g_mtag[kq] == kx % 2); kq++
        :: else -> break
        od;
        found = found && kc == 0;
        kx++
    :: else -> break
    od;
    if
    :: found ->
        kr = 0;
        do
        :: kr < npost -> assert(r_state[kr] == P_DONE); kr++
        :: else -> break
        od;
        kx = 0;
        do
        :: kx < NSND * MAXM -> assert(!g_msent[kx] || (g_mrecv[kx] != NONE && s_state[kx] == P_DONE)); kx++
        :: else -> break
        od
    :: else
    fi
}

proctype Receiver() {
    do
    :: atomic {
        norig < NR ->
        norig++;
        if
        :: f1 = 0
#if NAMED_T && NT > 0
        :: f1 = 1
#endif
#if ANYSRC
        :: f1 = ANY
#endif
        fi;
        if
        :: f2 = 0
#if NTAGS > 1
        :: f2 = 1
#endif
        fi;
        post_recv(f1, f2)
       }
    :: atomic {
        (cancel_rid != NONE && !replaced && r_state[cancel_rid] == P_DONE && r_cancelled[cancel_rid]) ->
        replaced = 1;
        f1 = r_src[cancel_rid];
        f2 = r_tag[cancel_rid];
        post_recv(f1, f2)
       }
#if CANCEL
    CANCEL_BR(0)
    CANCEL_BR(1)
#if NREC > 2
    CANCEL_BR(2)
#endif
#if NREC > 3
    CANCEL_BR(3)
#endif
#endif
    FIFOB(0)
    WRB(0, 0)
    WRB(0, 1)
    WRB(0, 2)
    WRB(0, 3)
#if NSND > 1
    FIFOB(1)
    WRB(1, 0)
    WRB(1, 1)
    WRB(1, 2)
    WRB(1, 3)
#endif
    :: timeout -> break
    od;
    atomic { final_check() }
}

/* proto_isend of the next message of sender p */
inline send_next(p) {
    f1 = tx_next[p];
    kx = p * MAXM + f1;
    tx_next[p]++;
    nsent[p]++;
    if
    :: g_mtag[kx] = 0
#if NTAGS > 1
    :: g_mtag[kx] = 1
#endif
    fi;
    g_msent[kx] = 1;
    ka = p * REQ_MAX + armed_head[p];
    if
    :: narmed[p] > 0 && a_seq[ka] == f1 && a_tag[ka] == g_mtag[kx] ->
        /* write protocol: the head REQ names this very message */
        armed_head[p] = (armed_head[p] + 1) % REQ_MAX;
        narmed[p]--;
        used[p] = used[p] | (1 << f1);
        ghost_match(kx, a_rid[ka]);
        s_state[kx] = PS_WRITING;
        if
        :: f5 = 1               /* exact: the notify alone tells */
        :: f5 = 0; SEND(fifo_sr[p], WDONE, f1, g_mtag[kx], a_rid[ka], a_gen[ka], 0)
        fi;
        wr[p]!f1, a_rid[ka], a_gen[ka], f5;
        s_state[kx] = P_DONE
    :: else ->
        narmed[p] = 0;          /* drop_armed */
        armed_head[p] = 0;
        fifo_sent[p] = 1;
        last_fifo[p] = f1;
        if
        :: credits[p] > 0 ->
            credits[p]--;
            assert(credits[p] >= 0);    /* credits never negative */
            s_state[kx] = PS_EAGER;
            SEND(fifo_sr[p], EAGER, f1, g_mtag[kx], 0, 0, 0);
            s_state[kx] = P_DONE
        :: true ->              /* large (or no credits): rendezvous */
            s_state[kx] = PS_WAIT_CTS;
            SEND(fifo_sr[p], RTS, f1, g_mtag[kx], 0, 0, 0)
        fi
    fi
}

proctype Sender(byte p) {
    do
    :: atomic { nsent[p] < NMSG(p) -> send_next(p) }
    :: atomic {
        fifo_rs[p]?mt, f1, f2, f3, f4, f5 ->
        if
        :: mt == REQ ->
            if
            :: f1 != tx_next[p] + narmed[p] || narmed[p] >= REQ_MAX ||
#ifndef PLANTED_ACCEPT_STALE_REQ
               (fifo_sent[p] && f5 <= last_fifo[p]) ||
#endif
               f5 > f1 -> skip  /* stale or chain broken: dropped */
            :: else ->
                ka = p * REQ_MAX + (armed_head[p] + narmed[p]) % REQ_MAX;
                a_seq[ka] = f1;
                a_tag[ka] = f2;
                a_rid[ka] = f3;
                a_gen[ka] = f4;
                narmed[p]++
            fi
        :: mt == CTS ->
            kx = p * MAXM + f1;
            assert(s_state[kx] == PS_WAIT_CTS);
            s_state[kx] = PS_WRITING;
            SEND(fifo_sr[p], WDONE, f1, g_mtag[kx], f3, f4, 0);
            wr[p]!f1, f3, f4, 0;
            s_state[kx] = P_DONE
        :: mt == CANCEL_MSG ->
            ka = p * REQ_MAX + armed_head[p];
            if
            :: narmed[p] > 0 && f1 >= a_seq[ka] && f1 < a_seq[ka] + narmed[p] ->
                narmed[p] = f1 - a_seq[ka];
                fifo_sent[p] = 1;
                last_fifo[p] = f1;
                f5 = CANCEL_DISARMED
            :: else ->
                if
                :: used[p] & (1 << f1) -> f5 = CANCEL_USED
                :: else ->
                    f5 = CANCEL_NOT_USED;
                    if
                    :: f1 >= tx_next[p] ->
                        fifo_sent[p] = 1;
                        last_fifo[p] = f1;
                        narmed[p] = 0;
                        armed_head[p] = 0
                    :: else
                    fi
                fi
            fi;
            SEND(fifo_sr[p], CANCEL_ACK, f1, 0, f3, f4, f5)
        :: mt == CREDIT ->
            credits[p]++;
            assert(credits[p] <= CREDITS)
        :: else -> assert(false)
        fi
       }
    :: timeout -> break
    od
}

init {
    byte i;
    atomic {
        for (i : 0 .. NREC - 1) {
            g_rmsg[i] = NONE;
            g_rdata[i] = NONE
        }
        for (i : 0 .. NSND * MAXM - 1) {
            g_mrecv[i] = NONE
        }
        for (i : 0 .. NSND - 1) {
            req_win[i] = 1;
            credits[i] = CREDITS
        }
        run Receiver();
        run Sender(0);
#if NSND > 1
        run Sender(1)
#endif
    }
}
