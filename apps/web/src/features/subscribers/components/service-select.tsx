import type { TService } from '@sms/contracts/services/service';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';

const serviceLabel = (service: TService, withCompany: boolean) =>
  `${service.name} (${service.shortcode} ${service.keyword})${withCompany ? ` · ${service.company.name}` : ''}`;

type TServiceSelectProps = {
  id: string;
  services: TService[];
  withCompany: boolean;
  value: string;
  onChange: (serviceId: string) => void;
};

/** The service a dialog acts on; a system admin also sees each service's company. */
export function ServiceSelect({ id, services, withCompany, value, onChange }: TServiceSelectProps) {
  return (
    <FormField id={id} label="Service">
      <select
        id={id}
        className={INPUT_CLASSES}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">Select a service</option>
        {services.map((service) => (
          <option key={service.id} value={service.id}>
            {serviceLabel(service, withCompany)}
          </option>
        ))}
      </select>
    </FormField>
  );
}
