import Dispatch
import LayoutTransport
import Testing
@testable import LayoutServer

/// A scheduler of two loops on four cores, and the context of a message on `loop`.
private func scheduler(cores: Int = 4) -> RequestScheduler {
    RequestScheduler(loopCount: 2, cores: cores, statistics: Statistics(), idle: IdleSignal())
}

private func context(loop: Int = 0, now: Double = 10, batchStart: Double = 10, pending: Int = 0) -> FrameContext {
    FrameContext(loop: loop, now: now, batchStart: batchStart, pending: pending,
                 limits: ConnectionLimits(maxMessageBytes: 1 << 20, maxOutputBytes: 1 << 20, maxPending: 64,
                                          partialMessageSeconds: 30, sendTimeoutSeconds: 30))
}

@Suite("Where the scheduler runs a request")
struct RequestSchedulerTests {
    /// A short quick message from the one connection asking on its loop, with nothing of the
    /// loop's on the workers: answered on the loop.
    @Test func aLoneClientsShortQuickRequestIsAnsweredOnTheLoop() {
        let s = scheduler()
        let alone = s.noteRequest(from: 5, context: context())
        #expect(alone)
        #expect(s.answersOnLoop(quick: true, messageBytes: 100, alone: alone, context: context()))
    }

    /// Not quick, too long, or past the batch's time on the loop: to the workers.
    @Test func slowLongOrLateRequestsGoToTheWorkers() {
        let s = scheduler()
        #expect(!s.answersOnLoop(quick: false, messageBytes: 100, alone: true, context: context()))
        #expect(!s.answersOnLoop(quick: true, messageBytes: RequestScheduler.inlineMessageBytes + 1, alone: true, context: context()))
        let late = context(now: 10 + RequestScheduler.inlineBatchSeconds + 0.001, batchStart: 10)
        #expect(!s.answersOnLoop(quick: true, messageBytes: 100, alone: true, context: late))
    }

    /// A lone client whose loop has requests on the workers: to the workers too (its answers
    /// would otherwise overtake them while a core may be free).
    @Test func aLoneClientWithWorkOnTheWorkersGoesThere() {
        let s = scheduler()
        s.loops[0].onWorkers.store(1, ordering: .relaxed)
        #expect(!s.answersOnLoop(quick: true, messageBytes: 100, alone: true, context: context()))
    }

    /// Another connection of the loop asked within `aloneSeconds`: not alone; alone again
    /// once the other has been quiet that long.
    @Test func askingAloneNeedsTheOthersQuiet() {
        let s = scheduler()
        #expect(s.noteRequest(from: 5, context: context(now: 10)))
        #expect(!s.noteRequest(from: 6, context: context(now: 10.01)))
        #expect(!s.noteRequest(from: 6, context: context(now: 10.03)))
        #expect(s.noteRequest(from: 6, context: context(now: 10.01 + RequestScheduler.aloneSeconds + 0.01)))
    }

    /// Clients sharing a loop: to the workers while a core is free; answered on the loop when
    /// the other cores all have work, if the connection has nothing on the workers.
    @Test func clientsSharingALoopAreAnsweredThereOnlyWhenTheOtherCoresAreBusy() {
        let s = scheduler(cores: 4)
        #expect(!s.answersOnLoop(quick: true, messageBytes: 100, alone: false, context: context()))
        s.loops[1].onWorkers.store(2, ordering: .relaxed)
        s.loops[1].busyUntil.store(Double.infinity.bitPattern, ordering: .relaxed)
        #expect(s.othersKeepTheCoresBusy(besides: 0, now: 10))
        #expect(s.answersOnLoop(quick: true, messageBytes: 100, alone: false, context: context()))
        #expect(!s.answersOnLoop(quick: true, messageBytes: 100, alone: false, context: context(pending: 1)))
    }

    /// Every worker taken: a short quick request of a connection with nothing on the workers
    /// is answered on the loop, so it never waits behind long ones.
    @Test func shortRequestsSkipSaturatedWorkers() {
        let s = scheduler(cores: 2)
        s.loops[0].onWorkers.store(1, ordering: .relaxed)
        s.loops[1].onWorkers.store(1, ordering: .relaxed)
        #expect(s.workersSaturated())
        #expect(s.answersOnLoop(quick: true, messageBytes: 100, alone: true, context: context()))
        #expect(!s.answersOnLoop(quick: true, messageBytes: 100, alone: true, context: context(pending: 1)))
    }

    /// After answering a lone client, a loop polls briefly when it has been the only one
    /// asked for a while, once; after watching a new connection, longer, unless it has work
    /// on the workers.
    @Test func loopsPollOnlyWhenTheCoresAreTheirs() {
        let s = scheduler()
        _ = s.noteRequest(from: 5, context: context(now: MonotonicClock.now() - 1))
        s.loops[0].answeredInline = true
        #expect(s.pollSeconds(loop: 0, watchedNew: false) == RequestScheduler.pollSeconds)
        #expect(s.pollSeconds(loop: 0, watchedNew: false) == 0)
        #expect(s.pollSeconds(loop: 1, watchedNew: true) == RequestScheduler.firstRequestPollSeconds)
        s.loops[1].onWorkers.store(1, ordering: .relaxed)
        #expect(s.pollSeconds(loop: 1, watchedNew: true) == 0)
        #expect(s.isBusy(loop: 1, at: MonotonicClock.now()))
        #expect(!s.isBusy(loop: 0, at: MonotonicClock.now()))
        #expect(!s.isBusy(loop: 7, at: MonotonicClock.now()))
    }
}

@Suite("The scheduler's count of requests in flight")
struct InFlightTests {
    /// The drain's wait ends when the last request in flight finishes, and not before.
    @Test func theDrainWaitsForTheLastRequest() {
        let idle = IdleSignal()
        let s = RequestScheduler(loopCount: 1, cores: 2, statistics: Statistics(), idle: idle)
        s.requestArrived()
        s.requestArrived()
        #expect(!idle.wait(seconds: 0.05) { s.requestsInFlight == 0 })
        let finishing = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            finishing.wait()
            s.requestFinished()
            s.requestFinished()
        }
        finishing.signal()
        #expect(idle.wait(seconds: 10) { s.requestsInFlight == 0 })
        #expect(s.requestsInFlight == 0)
    }
}
