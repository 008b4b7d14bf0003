package io.sextant.server.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/2 request over h2c (prior knowledge) with Netty's frame codec, and the frames of its
 * response as they came: which frame carried which headers and which ended the stream. What grpc-go
 * reads: a gRPC status in a HEADERS frame is a trailers-only answer only if that frame ends the
 * stream; otherwise grpc-go waits for trailers and reports "server closed the stream without sending
 * trailers" ({@code Internal}) when the stream ends in a DATA frame.
 */
public final class RawHttp2 {
  private RawHttp2() {}

  /**
   * A frame of the response: {@code HEADERS} (with its headers), {@code DATA} (its length), {@code
   * RST_STREAM} or {@code GOAWAY}.
   */
  public record Frame(String type, Map<String, String> headers, int dataLength, boolean endStream) {}

  /** POSTs {@code body} to {@code path} with {@code headers} and returns the response's frames once it ended. */
  public static List<Frame> post(int port, String path, Map<String, String> headers, byte[] body) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    List<Frame> frames = new ArrayList<>();
    CompletableFuture<List<Frame>> ended = new CompletableFuture<>();
    CompletableFuture<Void> settled = new CompletableFuture<>();
    try {
      Http2FrameAdapter listener = new Http2FrameAdapter() {
        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
          settled.complete(null); // the server's SETTINGS: the connection is set up, as grpc-go waits for
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
          add(new Frame("GOAWAY", Map.of("error", Long.toString(errorCode)), 0, true));
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers h, int padding,
            boolean endOfStream) {
          Map<String, String> map = new java.util.LinkedHashMap<>();
          h.forEach(e -> map.put(e.getKey().toString(), e.getValue().toString()));
          add(new Frame("HEADERS", map, 0, endOfStream));
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers h, int dependency,
            short weight, boolean exclusive, int padding, boolean endOfStream) {
          onHeadersRead(ctx, streamId, h, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
            boolean endOfStream) {
          int n = data.readableBytes() + padding;
          add(new Frame("DATA", Map.of(), data.readableBytes(), endOfStream));
          return n;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
          add(new Frame("RST_STREAM", Map.of("error", Long.toString(errorCode)), 0, true));
        }

        private synchronized void add(Frame f) {
          frames.add(f);
          if (f.endStream()) {
            ended.complete(List.copyOf(frames));
          }
        }
      };
      Http2ConnectionHandler[] handler = new Http2ConnectionHandler[1];
      Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              handler[0] = new Http2ConnectionHandlerBuilder().server(false).frameListener(listener).build();
              ch.pipeline().addLast(handler[0]);
            }
          }).connect("127.0.0.1", port).sync().channel();
      Http2Headers request = new DefaultHttp2Headers().method("POST").scheme("http").path(path)
          .authority("127.0.0.1:" + port);
      headers.forEach(request::add);
      settled.get(10, TimeUnit.SECONDS);
      channel.eventLoop().submit(() -> {
        ChannelHandlerContext ctx = channel.pipeline().context(handler[0]);
        handler[0].encoder().writeHeaders(ctx, 3, request, 0, false, ctx.newPromise());
        handler[0].encoder().writeData(ctx, 3, Unpooled.wrappedBuffer(body), 0, true, ctx.newPromise());
        channel.flush(); // through the HTTP/2 handler, which writes what its flow controller holds
      }).sync();
      return ended.get(10, TimeUnit.SECONDS);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /** A gRPC message frame: the uncompressed flag, the length, the bytes. */
  public static byte[] grpcFrame(byte[] message) {
    byte[] out = new byte[5 + message.length];
    out[1] = (byte) (message.length >>> 24);
    out[2] = (byte) (message.length >>> 16);
    out[3] = (byte) (message.length >>> 8);
    out[4] = (byte) message.length;
    System.arraycopy(message, 0, out, 5, message.length);
    return out;
  }
}
