//! The caches of a device, one entry per kernel family keyed by type ([`FamilyCache`]), and
//! compiled kernels cached by program structure ([`compiled`]). This module names no op
//! family: each family owns its entry type (its program key type, or a cache type of its
//! own such as the FFT's plans) and asks the device for it.

use crate::device::Device;
use kupfer_core::codegen::{ParamLayout, Target};
use kupfer_core::{DType, Result};
use kupfer_wgpu::pipeline::Pipeline;
use kupfer_wgpu::ShaderChecks;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};

/// A compiled pipeline and the layout of its uniform block.
pub(crate) type Compiled<P> = (Arc<Pipeline>, Arc<P>);

/// A compiled kernel whose uniform block is laid out by kupfer-core's `param_block`.
pub(crate) type CompiledKernel = Compiled<ParamLayout>;

/// `Send + Sync` natively, where devices are shared between threads; nothing in the browser,
/// whose wgpu objects are not `Send`.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) trait Shared: Send + Sync {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send + Sync + ?Sized> Shared for T {}
/// `Send + Sync` natively, where devices are shared between threads; nothing in the browser,
/// whose wgpu objects are not `Send`.
#[cfg(target_arch = "wasm32")]
pub(crate) trait Shared {}
#[cfg(target_arch = "wasm32")]
impl<T: ?Sized> Shared for T {}

/// Something a device caches for a family: created empty (`Default`) on the family's first
/// use of the device, then shared by every handle of the device.
pub(crate) trait CacheEntry: Any + Shared {
    fn as_any(&self) -> &dyn Any;
}
impl<T: Any + Shared> CacheEntry for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Most entry types one device holds (kernel maps and family caches together).
const SLOTS: usize = 64;

/// A device's caches, one entry per type: a lookup compares type ids along a short array of
/// filled slots (no hashing, no lock); only a family's first use takes a lock to fill one.
pub(crate) struct FamilyCache {
    slots: [OnceLock<(TypeId, Box<dyn CacheEntry>)>; SLOTS],
    filling: Mutex<()>,
}

impl Default for FamilyCache {
    fn default() -> Self {
        FamilyCache {
            slots: std::array::from_fn(|_| OnceLock::new()),
            filling: Mutex::new(()),
        }
    }
}

impl FamilyCache {
    /// The entry of type `T`, created empty on first use.
    pub(crate) fn get<T: CacheEntry + Default>(&self) -> &T {
        let id = TypeId::of::<T>();
        if let Some(found) = self.find(id) {
            return found;
        }
        let _filling = self.filling.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = self.find(id) {
            return found;
        }
        let slot = self
            .slots
            .iter()
            .find(|s| s.get().is_none())
            .expect("more cache entry types than FamilyCache::SLOTS (raise it)");
        let _ = slot.set((id, Box::new(T::default())));
        self.find(id).expect("the slot was just filled")
    }

    fn find<T: CacheEntry>(&self, id: TypeId) -> Option<&T> {
        for slot in &self.slots {
            match slot.get() {
                Some((t, entry)) if *t == id => return (**entry).as_any().downcast_ref::<T>(),
                Some(_) => {}
                None => return None,
            }
        }
        None
    }
}

/// Compiled kernels of one family, keyed by program structure `K` (never by constant values,
/// which travel in the uniform block): the device's entry for `K`.
pub(crate) struct Kernels<K, P>(Mutex<HashMap<K, Compiled<P>>>);

impl<K, P> Default for Kernels<K, P> {
    fn default() -> Self {
        Kernels(Mutex::new(HashMap::new()))
    }
}

/// The kernel of `key` from the device's cache for key type `K`; on a miss, `generate` writes
/// its WGSL for the device's target and the pipeline is compiled (and remembered) once.
pub(crate) fn compiled<K, P>(
    device: &Device,
    key: &K,
    generate: impl FnOnce(&Target) -> Result<(String, P)>,
) -> Result<Compiled<P>>
where
    K: Eq + Hash + Clone + CacheEntry,
    P: CacheEntry,
{
    let cache = &device.cache::<Kernels<K, P>>().0;
    if let Some(k) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(key) {
        return Ok(k.clone());
    }
    let ctx = device.context();
    let (wgsl, params) = generate(&ctx.target())?;
    // kupfer's own kernels run without wgpu's bounds checks and loop bounding; anything
    // holding a user's snippet keeps them.
    let checks = if wgsl.contains(kupfer_core::custom::USER_CODE_MARK) {
        ShaderChecks::Checked
    } else {
        ShaderChecks::Trusted
    };
    let entry = (ctx.pipeline_with(&wgsl, "main", checks)?, Arc::new(params));
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key.clone(), entry.clone());
    Ok(entry)
}

/// Fills a kernel's uniform block laid out by kupfer-core's `param_block`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn param_bytes(
    params: &ParamLayout,
    n: u32,
    start: u32,
    extra: &[u32],
    cshape: &[usize],
    cstrides: &[Vec<isize>],
    offsets: &[u32],
    scalars: &[(DType, Vec<u8>)],
) -> Vec<u8> {
    let mut bytes = vec![0u8; params.size];
    put_u32(&mut bytes, params.n, n);
    put_u32(&mut bytes, params.start, start);
    for (&at, &v) in params.extra.iter().zip(extra) {
        put_u32(&mut bytes, at, v);
    }
    for (j, &off) in params.dims.iter().enumerate() {
        put_u32(&mut bytes, off, cshape[j] as u32);
    }
    for (k, &o) in offsets.iter().enumerate() {
        put_u32(&mut bytes, params.offsets[k], o);
        for (j, &off) in params.strides[k].iter().enumerate() {
            put_u32(&mut bytes, off, cstrides[k][j] as i32 as u32);
        }
    }
    for (k, (_, value)) in scalars.iter().enumerate() {
        let at = params.scalars[k];
        bytes[at..at + value.len()].copy_from_slice(value);
    }
    bytes
}

fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[derive(Default)]
    struct Counter(AtomicU32);
    #[derive(Default)]
    struct Other(Mutex<Vec<u8>>);

    #[test]
    fn each_entry_type_has_one_entry_per_cache() {
        let cache = FamilyCache::default();
        cache.get::<Counter>().0.fetch_add(1, Ordering::Relaxed);
        cache.get::<Other>().0.lock().unwrap().push(7);
        cache.get::<Counter>().0.fetch_add(1, Ordering::Relaxed);
        assert_eq!(cache.get::<Counter>().0.load(Ordering::Relaxed), 2);
        assert_eq!(*cache.get::<Other>().0.lock().unwrap(), [7]);
        let (a, b) = (
            cache.get::<Kernels<u32, ()>>() as *const _ as usize,
            cache.get::<Kernels<u64, ()>>() as *const _ as usize,
        );
        assert_ne!(
            a, b,
            "kernel maps of different key types are different entries"
        );
        assert_eq!(
            FamilyCache::default()
                .get::<Counter>()
                .0
                .load(Ordering::Relaxed),
            0
        );
    }
}
