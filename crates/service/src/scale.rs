//! The desk's USB scale (`packdesk_scale` reads it): which device is set, and its latest weight in
//! the interface's words. The choice is this desk's (a shared database later keeps it per desk).

use crate::Service;
use packdesk_model::desk::{ScaleRequest, ScaleState, ScaleStatus};
use packdesk_model::request::{Weight, WeightUnit};
use packdesk_model::ServiceError;
use packdesk_scale::{Choice, Snapshot, Status, Unit};
use std::path::PathBuf;

const SCALE_KEY: &str = "scale_device";

impl Service {
    /// Starts reading the scale the desk was set to (workers call it at start).
    pub fn start_scale(&self) -> Result<(), ServiceError> {
        let saved = self.store.read(|c| packdesk_store::meta::desk_get(c, SCALE_KEY))?;
        self.scale.watch(choice_of(saved.as_deref()));
        Ok(())
    }

    pub fn scale_state(&self) -> ScaleState {
        state_of(&self.scale.snapshot())
    }

    /// The weight the scale offers now: stable, confirmed and above zero (as the Ship screen
    /// takes it); none without a scale or while it settles.
    pub(crate) fn scale_weight(&self) -> Option<Weight> {
        let s = self.scale_state();
        s.weight.filter(|w| s.stable && w.value > 0.0)
    }

    /// Sets the scale (kept for the next start) and reads it from now on.
    pub fn set_scale(&self, req: ScaleRequest) -> Result<ScaleState, ServiceError> {
        let device = req.device.map(|d| d.trim().to_string()).filter(|d| !d.is_empty());
        if let Some(d) = &device {
            if d != "auto" && !d.starts_with('/') {
                return Err(ServiceError::invalid(
                    "device",
                    format!("`{d}` is not a device: give \"auto\", a device file such as /dev/hidraw3, or null for no scale"),
                ));
            }
        }
        let saved = device.clone().unwrap_or_default();
        self.store
            .write(|tx| packdesk_store::meta::desk_set(tx, SCALE_KEY, &saved))?;
        self.scale.watch(choice_of(device.as_deref()));
        Ok(self.scale_state())
    }
}

fn choice_of(saved: Option<&str>) -> Choice {
    match saved {
        None | Some("") => Choice::Off,
        Some("auto") => Choice::Auto,
        Some(path) => Choice::Device(PathBuf::from(path)),
    }
}

fn state_of(s: &Snapshot) -> ScaleState {
    let device = match &s.choice {
        Choice::Off => None,
        Choice::Auto => Some("auto".to_string()),
        Choice::Device(p) => Some(p.display().to_string()),
    };
    let status = match (&s.choice, s.connected, s.reading) {
        (Choice::Off, _, _) => ScaleStatus::Off,
        (_, false, _) => ScaleStatus::Disconnected,
        (_, true, None) => ScaleStatus::Waiting,
        (_, true, Some(r)) => match r.status {
            Status::Zero => ScaleStatus::Zero,
            Status::InMotion => ScaleStatus::InMotion,
            Status::Stable => ScaleStatus::Stable,
            Status::UnderZero => ScaleStatus::UnderZero,
            Status::OverWeight => ScaleStatus::OverWeight,
            Status::Fault => ScaleStatus::Fault,
            Status::NeedsCalibration => ScaleStatus::NeedsCalibration,
            Status::NeedsRezeroing => ScaleStatus::NeedsRezeroing,
            Status::Unknown(_) => ScaleStatus::Unknown,
        },
    };
    let weight = s.reading.and_then(|r| {
        r.unit.map(|u| Weight {
            value: r.value(),
            unit: match u {
                Unit::G => WeightUnit::G,
                Unit::Kg => WeightUnit::Kg,
                Unit::Oz => WeightUnit::Oz,
                Unit::Lb => WeightUnit::Lb,
            },
        })
    });
    let message = s.problem.clone().or_else(|| {
        let r = s.reading?;
        Some(match r.status {
            _ if r.unit.is_none() => format!(
                "The scale weighs in a unit Packdesk does not take (HID unit {}): set it to g, kg, oz or lb",
                r.unit_code
            ),
            Status::Zero | Status::Stable if !s.trusted => "First reading: waiting for the scale to repeat it".into(),
            // The status says it all.
            Status::Zero | Status::Stable | Status::InMotion => return None,
            Status::UnderZero => "Below zero: empty the platter and zero the scale".into(),
            Status::OverWeight => "Too heavy for this scale".into(),
            Status::NeedsCalibration => "The scale needs calibrating".into(),
            Status::NeedsRezeroing => "Zero the scale (empty platter, then its zero key)".into(),
            Status::Fault | Status::Unknown(_) => "The scale reports a fault".into(),
        })
    });
    ScaleState {
        device,
        path: s.device.as_ref().map(|p| p.display().to_string()),
        name: s.name.clone(),
        connected: s.connected,
        stable: s.stable(),
        weight,
        status,
        message,
        reports: s.reports,
    }
}
