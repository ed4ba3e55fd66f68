package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// RedisServerBinary is the redis-server a test may start privately (Debian's
// redis-server package, installed by test/services.sh).
const RedisServerBinary = "redis-server"

// PrivateRedis is a redis-server of one test, on a free loopback port, that the
// test may kill and start again on the same port. It keeps an append-only file
// written on every command, so a restart finds what was written before a kill.
type PrivateRedis struct {
	t    testing.TB
	bin  string
	dir  string
	Addr string
	cmd  *exec.Cmd
}

// StartRedis starts a private redis-server, or skips when the binary is missing
// (fails with ENGRAM_TEST_REQUIRE_SERVICES=1). It is killed when the test ends.
func StartRedis(t testing.TB) *PrivateRedis {
	t.Helper()
	bin, err := exec.LookPath(RedisServerBinary)
	if err != nil {
		if Required() {
			t.Fatalf("%s not found but %s=1: install redis-server (test/services.sh up)", RedisServerBinary, RequireServicesVar)
		}
		t.Skipf("%s not found; skipping the private Redis case", RedisServerBinary)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	r := &PrivateRedis{t: t, bin: bin, dir: t.TempDir(), Addr: addr}
	r.Start()
	t.Cleanup(r.Kill)
	return r
}

// Start runs the server (again) and waits until it answers PING.
func (r *PrivateRedis) Start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.Addr)
	r.cmd = exec.Command(r.bin, "--port", port, "--bind", "127.0.0.1", "--dir", r.dir, "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "no")
	r.cmd.Stdout, r.cmd.Stderr = nil, nil
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("start %s: %v", r.bin, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !r.answers() {
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			r.t.Fatalf("redis-server on %s did not answer within 10s %s", r.Addr, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops the server at once (SIGKILL, no shutdown save) and waits for it.
func (r *PrivateRedis) Kill() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// answers sends PING over a plain connection.
func (r *PrivateRedis) answers() bool {
	c, err := net.DialTimeout("tcp", r.Addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := fmt.Fprint(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// DeleteRedisPrefix deletes every key under prefix+":" on the server at addr: the
// clean-up of a test or benchmark that used a key prefix of its own on a shared
// Redis.
func DeleteRedisPrefix(addr, prefix string) error {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var cursor uint64
	for {
		e, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match(prefix+":*").Count(1000).Build()).AsScanEntry()
		if err != nil {
			return err
		}
		if len(e.Elements) > 0 {
			if err := c.Do(ctx, c.B().Del().Key(e.Elements...).Build()).Error(); err != nil {
				return err
			}
		}
		if cursor = e.Cursor; cursor == 0 {
			return nil
		}
	}
}
