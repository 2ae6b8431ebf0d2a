//! The desk's USB scale over HTTP, against the real server. The scale is not on this machine: a
//! FIFO stands in for its /dev/hidrawN and gets the 6-byte reports a Dymo or Mettler scale sends.

use crate::support;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::Server;

pub(crate) fn fifo(dir: &Path) -> PathBuf {
    let path = dir.join("hidraw5");
    assert!(std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap()
        .success());
    path
}

pub(crate) fn scale_until(s: &Server, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let state = s.live_ok("GET", "/desk/scale", None);
        if pred(&state) {
            return state;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "waited for {what}: {state}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_scale_set_by_path_shows_its_weight_once_confirmed_and_survives_a_restart() {
    let mut s = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let path = fifo(dir.path());
    let off = s.live_ok("GET", "/desk/scale", None);
    assert_eq!(
        (off["device"].clone(), off["status"].clone()),
        (Value::Null, json!("off"))
    );

    // Only the live key sets the desk's hardware; a word that is not a device is refused where it is.
    let (code, body) = s.call("PUT", "/desk/scale", &s.sandbox, Some(&json!({"device": path})));
    assert_eq!(code, 401, "{body}");
    let (code, body) = s.call("PUT", "/desk/scale", &s.live, Some(&json!({"device": "hidraw5"})));
    assert_eq!((code, body["meta"]["code"].clone()), (200, json!(4104)), "{body}");
    assert_eq!(support::detail_paths(&body), ["device"]);
    assert!(body["meta"]["details"][0]["info"]
        .as_str()
        .unwrap()
        .contains("/dev/hidraw3"));

    let set = s.live_ok("PUT", "/desk/scale", Some(&json!({"device": path})));
    assert_eq!(set["device"], json!(path));
    let mut device = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let waiting = scale_until(&s, "connected", |v| v["connected"] == json!(true));
    assert_eq!(waiting["status"], "waiting");

    // 2.35 kg, stable: not taken until the scale repeats it.
    device.write_all(&[3, 4, 3, 0xFE, 0xEB, 0x00]).unwrap();
    let first = scale_until(&s, "the first report", |v| v["reports"] == json!(1));
    assert_eq!(first["weight"], json!({"value": 2.35, "unit": "kg"}));
    assert_eq!(
        (first["status"].clone(), first["stable"].clone()),
        (json!("stable"), json!(false))
    );
    assert!(first["message"].as_str().unwrap().contains("repeat"));
    device.write_all(&[3, 4, 3, 0xFE, 0xEB, 0x00]).unwrap();
    let confirmed = scale_until(&s, "the repeat", |v| v["reports"] == json!(2));
    assert_eq!(confirmed["stable"], json!(true));
    assert_eq!(confirmed["message"], Value::Null);

    // In motion and under zero are not weights to take; ounces come with their exponent.
    device.write_all(&[3, 3, 11, 0xFF, 0x7D, 0x00]).unwrap();
    let moving = scale_until(&s, "motion", |v| v["reports"] == json!(3));
    assert_eq!(moving["weight"], json!({"value": 12.5, "unit": "oz"}));
    assert_eq!(
        (moving["status"].clone(), moving["stable"].clone()),
        (json!("in_motion"), json!(false))
    );
    device.write_all(&[3, 5, 2, 0, 30, 0]).unwrap();
    let under = scale_until(&s, "under zero", |v| v["reports"] == json!(4));
    assert_eq!(under["weight"], json!({"value": -30.0, "unit": "g"}));
    assert!(under["message"].as_str().unwrap().contains("zero the scale"));

    // Unplugged: the desk says so and keeps waiting.
    drop(device);
    let gone = scale_until(&s, "disconnect", |v| v["connected"] == json!(false));
    assert_eq!(
        (gone["status"].clone(), gone["weight"].clone()),
        (json!("disconnected"), Value::Null)
    );
    assert!(gone["message"].as_str().unwrap().contains("disconnected"));

    // The setting is the desk's: a restart reads the same device.
    s.kill_and_restart();
    let mut device = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    device.write_all(&[3, 2, 2, 0, 0, 0]).unwrap();
    let back = scale_until(&s, "the scale after the restart", |v| v["reports"] == json!(1));
    assert_eq!(back["device"], json!(path));
    assert_eq!(back["status"], "zero");

    let none = s.live_ok("PUT", "/desk/scale", Some(&json!({"device": null})));
    assert_eq!(
        (none["status"].clone(), none["connected"].clone()),
        (json!("off"), json!(false))
    );
}

#[test]
fn auto_on_a_desk_without_a_scale_says_none_was_found() {
    // This machine has no USB scale (its hidraw devices, if any, are not of the Scale page).
    let s = Server::start();
    s.live_ok("PUT", "/desk/scale", Some(&json!({"device": "auto"})));
    let state = scale_until(&s, "the search", |v| {
        v["message"].as_str().is_some_and(|m| m.contains("No scale found"))
    });
    assert_eq!(
        (state["device"].clone(), state["status"].clone()),
        (json!("auto"), json!("disconnected"))
    );
}
