/**
 * A Netty transport over RDMA: {@link dev.rpcrdma.channel.RdmaChannel} (an RC connection over RDMA-CM),
 * {@link dev.rpcrdma.channel.RdmaServerChannel} and the {@link dev.rpcrdma.channel.RdmaIoHandler} of their event
 * loops. The module README ("Inside a channel", "Event loop", "Ownership") details every rule summarised here.
 *
 * <h2>Connection</h2>
 * The connect request carries {@link dev.rpcrdma.channel.RdmaChannelOption#PRIVATE_DATA}; the peer's is
 * {@code peerPrivateData()}, set before the channel becomes active. A client fires {@code channelActive} before its
 * connect future completes, so what handlers negotiate there is in place once {@code connect()} completes. An
 * accepted channel is registered first ({@code channelRegistered} can read the request, set the reply's private data
 * and size the connection) and then accepts, automatically unless
 * {@link dev.rpcrdma.channel.RdmaChannelOption#AUTO_ACCEPT} is off. Until it accepts it has no protection domain.
 *
 * <h2>Inbound</h2>
 * Each received Send is fired as an {@link dev.rpcrdma.channel.RdmaReceive} (the reader releases it) whose content
 * is the receive buffer itself while a spare buffer is free to post in its place, else a copy. Reposts go out in
 * batches of an eighth of the depth. With auto-read off and no read pending, receives are held un-reposted until
 * {@code read()}: the peer meets RNR, real back-pressure.
 *
 * <h2>Outbound</h2>
 * A {@link io.netty.buffer.ByteBuf} or {@link dev.rpcrdma.channel.RdmaSend} is one Send, its bytes copied when
 * posted (inline, else into a registered send slot), so its promise completes then, as a TCP write completes once its
 * bytes are in the socket buffer; a Send that fails later breaks the connection. {@link dev.rpcrdma.channel.RdmaWrite},
 * {@link dev.rpcrdma.channel.RdmaRead} and {@link dev.rpcrdma.channel.RdmaBindWindow} complete their promise at their
 * completion, and a Send flushed behind one waits with it: promises complete in write order. Work requests are
 * signalled selectively and posted in chains; while {@code SEND_QUEUE_DEPTH} are outstanding the channel is not
 * writable. The RPC-over-RDMA handlers' Sends may skip the pipeline's write machinery where that changes nothing
 * (the internal {@code RdmaConnection.sendDirect}: the handler first in the pipeline, nothing in the outbound buffer).
 *
 * <h2>Close</h2>
 * As Netty's io_uring transport delays a close until its outstanding operations completed, the channel disconnects,
 * moves its queue pair to error (a drain marker behind an unsignalled last Send, as the kernel's
 * {@code ib_drain_sq}) and waits for the flush of every posted work request to come back through the loop's normal
 * completion polling; then Netty's close runs and the verbs objects are destroyed, memory windows before the queue
 * pair (a bound window can hold a queue pair's destroy in the kernel). A timer of 5 s is the backstop for a device
 * that does not flush. A device that does not flush work posted after the error
 * ({@code VerbsDevice.flushesWorkPostedInError()} false, iWARP) gets 200 ms instead: what it flushes it flushes at
 * the state change.
 *
 * <h2>Event loop</h2>
 * The channels of a loop share, per device, one protection domain, one completion channel and a few completion
 * queues; a completion reaches its channel by the channel id in its {@code wr_id}, so an iteration's cost does not
 * grow with idle connections. The loop polls its "hot" queues in batches; with no work it optionally busy-polls,
 * then arms every hot queue and polls it once more (a completion that raced with the arming is found by that poll,
 * one after it signals the completion channel), then waits in {@code epoll_wait} on the completion-channel fds, the
 * RDMA-CM event-channel fds and a wakeup eventfd. A completion-channel event re-arms its queue at once, so the poll
 * that finds the event's completions is also the poll after arming: in an event-driven loop a queue that this poll
 * leaves empty goes cold at once (one {@code ibv_poll_cq} per wake-up, as a C loop sleeping on its completion
 * channel), and a wake-up whose work leaves every queue cold, queues no task and finds none due sleeps again without
 * returning to the executor. A loop that finds work looks at its fds without waiting only when
 * some queue is cold, or every millisecond for RDMA-CM events, and reads the clock once in 32 rounds
 * ({@code System.nanoTime()} is a system call where the clocksource has no vDSO). Channels are closed while the loop
 * still runs tasks ({@code prepareToDestroy()} and an executor shutdown hook), so {@code close()} completes
 * normally; {@code wakeup()} follows {@code EpollIoHandler}.
 *
 * <h2>Completion queues per loop and device</h2>
 * An {@code EventLoopDevice} holds what one loop shares on one device: a protection domain, one completion channel
 * (one fd in the loop's epoll set, however many connections) and the completion queues; a completion is routed to its
 * channel by the channel id in its {@code wr_id} (like io_uring's {@code user_data}) through a primitive map, so one
 * iteration of the loop polls a handful of queues, not one per connection. Each queue pair reserves its send and
 * receive depths in one queue, which is never asked to hold more than its capacity; when no queue has room a new one
 * is created, twice the size of the queues so far (within the device's {@code max_cqe}), so the number of queues grows
 * with the logarithm of the connections. A queue pair destroyed before its work requests all came back (the close
 * backstop) keeps its reservation. The objects are created when the loop's first channel sets up its queue pair on
 * the device; each channel holds a reference until its memory is deregistered, and the last release destroys the
 * queues, the completion channel and the protection domain (after the current poll batch), so an idle loop holds no
 * device objects; a channel whose queue pair could not be destroyed never releases, and the loop's
 * {@code destroy()} destroys what is left.
 */
package dev.rpcrdma.channel;
