//! The root of the allocation recorder harness's build script compiles on its own (`rustc
//! --crate-type cdylib`, `core` only): the malloc hooks of `recorder.rs` and a constructor that
//! resolves the real functions before `main`. Not a module of harness.

#![no_std]

mod recorder;

extern "C" fn init() {
    recorder::resolve_all();
}

/// Runs `init` when the library is loaded, before the program's `main`.
#[used]
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = init;

/// The hooks never panic (no indexing, no checked arithmetic in a release build); a panic
/// would be a bug, and aborting is all a malloc hook can do.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe extern "C" {
        fn abort() -> !;
    }
    // SAFETY: libc's abort takes nothing and never returns.
    unsafe { abort() }
}
