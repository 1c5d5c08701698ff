/**
 * Grafana's published dashboard type (`@grafana/schema`: the JSON model of schemaVersion 39
 * dashboards) as a JSON file holds it. TypeScript enums become the values Grafana writes
 * ("thresholds", not `FieldColorModeId.Thresholds`); a panel's `options` and custom field config
 * are checked against the types Grafana publishes for its panel type (all optional: Grafana fills
 * in its defaults), and a panel type not listed in PanelTypes is refused. Everything else is the
 * type itself: required fields, value types, and no key the model does not know.
 */
import type { Dashboard, FieldConfigSource, Panel, RowPanel } from '@grafana/schema';
import type * as Stat from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type * as TimeSeries from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

/**
 * The panel types the dashboards may use, with Grafana's types of their options and custom field
 * config (a dashboard with another type fails: add it here, from the package's
 * `raw/composable/<type>/panelcfg`).
 */
interface PanelTypes {
  stat: { options: Stat.Options; custom: Record<string, never> };
  timeseries: { options: TimeSeries.Options; custom: TimeSeries.FieldConfig };
}

type DeepPartial<T> = T extends readonly (infer Item)[]
  ? DeepPartial<Item>[]
  : T extends object
    ? { [Key in keyof T]?: DeepPartial<T[Key]> }
    : T;

type TypedPanel<Type extends keyof PanelTypes> = Omit<Panel, 'type' | 'options' | 'fieldConfig'> & {
  type: Type;
  options?: DeepPartial<PanelTypes[Type]['options']>;
  fieldConfig?: Omit<FieldConfigSource, 'defaults'> & {
    defaults: Omit<FieldConfigSource['defaults'], 'custom'> & {
      custom?: DeepPartial<PanelTypes[Type]['custom']>;
    };
  };
};
type PanelJson = { [Type in keyof PanelTypes]: TypedPanel<Type> }[keyof PanelTypes];

/** `T` with every string enum read as the union of its values, at any depth. */
type AsJson<T> = 0 extends 1 & T
  ? T // any stays any (the type of values Grafana does not constrain)
  : T extends string
    ? `${T}`
    : T extends readonly (infer Item)[]
      ? AsJson<Item>[]
      : T extends object
        ? { [Key in keyof T]: AsJson<T[Key]> }
        : T;

export type DashboardJson = AsJson<
  Omit<Dashboard, 'panels'> & {
    panels?: Array<PanelJson | (Omit<RowPanel, 'panels'> & { panels: PanelJson[] })>;
  }
>;
